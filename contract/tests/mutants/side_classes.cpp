// The mutant classes of the quick plan's sides (contract/run/sides.cpp): filters, a proxy's headers, shared
// caches in front, compression and a HEAD answered with a body in a second write. Each breaks the contract
// wherever it applies; the sides are all asked by a quick run, so every one is quick-visible.
#include <algorithm>
#include <memory>

#include "broken/shared_cache.hpp"
#include "class_support.hpp"
#include "entimg/common/ascii.hpp"
#include "entimg/mock/behaviour.hpp"

namespace entimg::mutants::detail {
namespace {

using broken::edit_link;
using broken::edit_links;
using broken::Json;
using broken::number_param;
using broken::remove_param;
using broken::set_header;
using broken::set_param;
using mock::HttpRequest;
using mock::HttpResponse;

std::string host_of(const Call& c) {
  return c.request.header("Host").value_or(c.request.server_authority);
}

// The image URLs of the page's records on another origin, path kept.
void images_on(Json& page, const std::string& origin) {
  if (!page["results"].is_array()) return;
  for (Json& record : page["results"])
    if (record.is_object() && record["image"].is_string())
      record["image"] = broken::with_origin(record["image"].get<std::string>(), origin);
}

// "https", "h:1" from Forwarded: proto=https;host="h:1" (RFC 7239), "" where a pair is missing.
std::pair<std::string, std::string> forwarded_pairs(std::string_view value) {
  std::string proto, host;
  while (!value.empty()) {
    const std::size_t semicolon = value.find(';');
    const std::string_view pair = common::trim(value.substr(0, semicolon));
    value = semicolon == std::string_view::npos ? std::string_view{} : value.substr(semicolon + 1);
    const std::size_t eq = pair.find('=');
    if (eq == std::string_view::npos) continue;
    std::string_view v = pair.substr(eq + 1);
    if (v.size() >= 2 && v.front() == '"' && v.back() == '"') v = v.substr(1, v.size() - 2);
    if (common::iequals_ascii(pair.substr(0, eq), "proto")) proto = v;
    if (common::iequals_ascii(pair.substr(0, eq), "host")) host = v;
  }
  return {proto, host};
}

// --- filters: ?entity= and the nested route answering what they should not ------------------------------

std::vector<Maker> filters() {
  return {
      [](const World& w, common::Pcg32&) {
        const std::uint64_t whole = w.count;
        return make("filters", "count of the whole collection (" + std::to_string(whole) + ")",
                    filtered_requests(), on_page([whole](const Call&, Json& p) { p["count"] = whole; }));
      },
      [](const World&, common::Pcg32& rng) {
        // On one route: a filter ignored on both is a deployment's known state (edw's filter_class under
        // django-filter 22.1 and later), a warning unless --require-filter; one that half-works is a bug.
        const bool nested = rng.chance(50);
        const Position where = nested ? nested_route() : entity_query();
        return make("filters", "the filter ignored: the whole collection's records", where,
                    [nested](const Call& c, HttpResponse& r, Wire&) {
                      if (nested && !is_nested(c)) return;
                      HttpRequest whole = c.request;
                      common::QueryParams params = c.params;
                      remove_param(params, "entity");
                      const std::string path(broken::path_of(c.request));
                      whole = broken::with_query(whole, params);
                      if (is_nested(c))
                        whole.target = std::string(kCollection) + whole.target.substr(path.size());
                      r = c.upstream.handle(whole);
                      broken::edit_page(r, [&](Json& p) {
                        edit_links(p, [&](std::string_view, const std::string& url) {
                          std::string out = url;  // the links as the request's own route builds them
                          if (const std::size_t at = out.find(kCollection); at != std::string::npos)
                            out.replace(at, kCollection.size(), path);
                          return is_nested(c) ? out : edit_link(out, [&](common::QueryParams& q) {
                            for (const auto& [k, v] : c.params)
                              if (k == "entity") set_param(q, "entity", v);
                          });
                        });
                      });
                    });
      },
      [](const World&, common::Pcg32& rng) {
        const std::string key = rng.chance(50) ? "next" : "previous";
        return make(
            "filters", key + " drops entity", filtered_requests(), on_page([key](const Call&, Json& p) {
              edit_links(p, [&](std::string_view k, const std::string& url) {
                return k != key ? url
                                : edit_link(url, [](common::QueryParams& q) { remove_param(q, "entity"); });
              });
            }));
      },
      [](const World&, common::Pcg32&) {
        return make("filters", "the last record of another entity", filtered_requests(),
                    on_page([](const Call&, Json& p) {
                      if (!p["results"].is_array() || p["results"].empty()) return;
                      Json& last = p["results"].back();
                      if (last.is_object() && last["entity"].is_number_integer())
                        last["entity"] = last["entity"].get<std::int64_t>() + 1;
                    }));
      },
      [](const World&, common::Pcg32&) {
        return make("filters", "next on the last page, to an empty one", filtered_requests(),
                    on_page([](const Call& c, Json& p) {
                      if (!p["next"].is_null() || !p["previous"].is_string() || !p["results"].is_array())
                        return;
                      const std::uint64_t offset = number_param(c.params, "offset").value_or(0);
                      const std::uint64_t limit = number_param(c.params, "limit").value_or(12);
                      p["next"] = edit_link(p["previous"].get<std::string>(), [&](common::QueryParams& q) {
                        set_param(q, "limit", std::to_string(limit));
                        set_param(q, "offset", std::to_string(offset + limit));
                      });
                    }));
      },
  };
}

// --- proxies: links and images built from different sources ---------------------------------------------

std::vector<Maker> proxies() {
  return {
      [](const World&, common::Pcg32&) {
        return make("proxies", "links follow X-Forwarded-*, image URLs stay on the Host (http)",
                    proxied_requests(),
                    on_page([](const Call& c, Json& p) { images_on(p, "http://" + host_of(c)); }));
      },
      [](const World&, common::Pcg32&) {
        return make("proxies", "image URLs follow X-Forwarded-*, links stay on the Host (http)",
                    proxied_requests(), on_page([](const Call& c, Json& p) {
                      edit_links(p, [&](std::string_view, const std::string& url) {
                        return broken::with_origin(url, "http://" + host_of(c));
                      });
                    }));
      },
      [](const World&, common::Pcg32&) {
        return make("proxies", "Forwarded honoured for the links alone", proxied_requests(),
                    on_page([](const Call& c, Json& p) {
                      const auto forwarded = c.request.header("Forwarded");
                      if (!forwarded) return;
                      const auto [proto, host] = forwarded_pairs(*forwarded);
                      if (proto.empty() || host.empty()) return;
                      edit_links(p, [&](std::string_view, const std::string& url) {
                        return broken::with_origin(url, proto + "://" + host);
                      });
                    }));
      },
      [](const World&, common::Pcg32&) {
        return make("proxies", "X-Forwarded-Host taken without its port", proxied_requests(),
                    on_page([](const Call& c, Json& p) {
                      const auto host = c.request.header("X-Forwarded-Host");
                      const auto proto = c.request.header("X-Forwarded-Proto");
                      if (!host || host->find(':') == std::string::npos) return;
                      const std::string origin =
                          (proto == "https" ? "https://" : "http://") + host->substr(0, host->rfind(':'));
                      edit_links(p, [&](std::string_view, const std::string& url) {
                        return broken::with_origin(url, origin);
                      });
                      images_on(p, origin);
                    }));
      },
  };
}

// --- shared caches in front: keyed without the host, or blind to Vary -----------------------------------

Mutant cache_mutant(const std::string& what, broken::CacheKeying keying, bool gzip_upstream) {
  auto cache = std::make_shared<broken::SharedCache>();
  Mutant m = make("shared-caches", what, every_page(),
                  [cache, keying, gzip_upstream](const Call& c, HttpResponse& r, Wire&) {
                    r = cache->answer(
                        c.request,
                        [&](const HttpRequest& request) {
                          HttpResponse fresh = c.upstream.handle(request);
                          if (gzip_upstream) mock::apply_gzip_middleware(request, fresh);
                          return fresh;
                        },
                        keying);
                  });
  m.reset = [cache] { cache->clear(); };
  return m;
}

std::vector<Maker> shared_caches() {
  return {
      [](const World&, common::Pcg32&) {
        return cache_mutant("a cache keyed without the Host and the forwarding headers",
                            {.host = false, .forwarding = false}, false);
      },
      [](const World&, common::Pcg32&) {
        return cache_mutant("a cache that ignores Vary: Accept", {.vary = false}, false);
      },
      [](const World&, common::Pcg32&) {
        return cache_mutant("a cache that ignores Vary: Accept-Encoding, over GZipMiddleware",
                            {.vary = false}, true);
      },
  };
}

// --- compression: framing and contents of compressed answers ---------------------------------------------

bool offers(const Call& c, std::string_view coding) {
  const std::string offered = common::ascii_lowered(c.request.header("Accept-Encoding").value_or(""));
  return offered.find(coding) != std::string::npos;
}

void gzipped(HttpResponse& r) {
  r.body = mock::gzip_compress(r.body);
  set_header(r, "Content-Encoding", "gzip");
  mock::patch_vary_headers(r, "Accept-Encoding");
}

std::vector<Maker> compression() {
  return {
      [](const World&, common::Pcg32&) {
        return make("compression", "gzip framed by its uncompressed length, then a close", compression_asks(),
                    [](const Call& c, HttpResponse& r, Wire& wire) {
                      if (!offers(c, "gzip") || r.status != 200) return;
                      const auto plain = static_cast<std::int64_t>(r.body.size());
                      gzipped(r);
                      wire.length_delta = plain - static_cast<std::int64_t>(r.body.size());
                      wire.close_after = true;
                    });
      },
      [](const World&, common::Pcg32&) {
        return make("compression", "gzip to any Accept-Encoding (br alone too)", compression_asks(),
                    [](const Call& c, HttpResponse& r, Wire&) {
                      if (r.status == 200 && c.request.header("Accept-Encoding")) gzipped(r);
                    });
      },
      [](const World&, common::Pcg32&) {
        return make("compression", "gzip of another rendering (a record's alt)", compression_asks(),
                    [](const Call& c, HttpResponse& r, Wire&) {
                      if (!offers(c, "gzip")) return;
                      if (!broken::edit_page(r, [](Json& p) {
                            if (!p["results"].empty() && p["results"][0].is_object())
                              p["results"][0]["alt"] = "stale";
                          }))
                        return;
                      gzipped(r);
                    });
      },
      [](const World&, common::Pcg32& rng) {
        const auto cut = static_cast<std::size_t>(rng.between(1, 16));
        return make("compression", "a gzip stream cut " + std::to_string(cut) + " bytes short",
                    compression_asks(), [cut](const Call& c, HttpResponse& r, Wire&) {
                      if (!offers(c, "gzip") || r.status != 200) return;
                      gzipped(r);
                      r.body.resize(r.body.size() > cut ? r.body.size() - cut : 0);
                    });
      },
      [](const World&, common::Pcg32&) {
        return make("compression", "Content-Encoding: br on a gzip body", compression_asks(),
                    [](const Call& c, HttpResponse& r, Wire&) {
                      if (!offers(c, "br") || r.status != 200) return;
                      gzipped(r);
                      set_header(r, "Content-Encoding", "br");
                    });
      },
  };
}

// --- HEAD answered with a body in a second write, then a close (gunicorn's sync worker) ------------------

std::vector<Maker> head_close() {
  return {[](const World&, common::Pcg32& rng) {
    const auto pause = std::chrono::milliseconds(one_of(rng, std::vector<int>{0, 2, 10, 30}));
    return make("head-close",
                "HEAD answered with GET's body in a second write " + std::to_string(pause.count()) +
                    " ms after the head, then a close",
                head_requests(), [pause](const Call&, HttpResponse&, Wire& wire) {
                  wire.body_after_head = true;
                  wire.split_after_head = true;
                  wire.split_pause = pause;
                  wire.close_after = true;
                });
  }};
}

}  // namespace

std::vector<Maker> filter_class() {
  return filters();
}
std::vector<Maker> proxy_class() {
  return proxies();
}
std::vector<Maker> shared_cache_class() {
  return shared_caches();
}
std::vector<Maker> compression_class() {
  return compression();
}
std::vector<Maker> head_close_class() {
  return head_close();
}

}  // namespace entimg::mutants::detail
