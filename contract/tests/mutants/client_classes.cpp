// The mutant classes of what a client does past the list (contract/run/pictures.cpp, follow_ups.cpp): the
// pictures at the records' image URLs, a record opened on its detail route and on the nested route, a page
// revalidated with its validators, the slashless path's redirect, and bad input on ?entity=. Each breaks the
// contract wherever it applies.
#include <algorithm>
#include <memory>
#include <mutex>
#include <set>

#include "class_support.hpp"

namespace entimg::mutants::detail {
namespace {

using broken::Json;
using broken::path_of;
using broken::set_header;
using mock::HttpRequest;
using mock::HttpResponse;

bool is_get(const Call& c) {
  return c.request.method == "GET";
}

bool is_picture(const Call& c) {
  return is_get(c) && path_of(c.request).starts_with("/media/");
}

// A page of the whole collection (no filter), in any representation the mutation can read.
bool is_collection_page(const Call& c) {
  return is_get(c) && path_of(c.request) == kCollection && common::last_value(c.params, "entity") == nullptr;
}

// /edw/api/entities-images/<digits>/: the id a detail route asks for.
std::optional<std::uint64_t> detail_id(const Call& c) {
  const std::string_view path = path_of(c.request);
  if (!is_get(c) || !path.starts_with(kCollection) || !path.ends_with('/') ||
      path.size() <= kCollection.size() + 1)
    return std::nullopt;
  const std::string_view digits = path.substr(kCollection.size(), path.size() - kCollection.size() - 1);
  if (digits.find_first_not_of("0123456789") != std::string_view::npos || digits.size() > 18)
    return std::nullopt;
  return std::stoull(std::string(digits));
}

HttpResponse answer_at(const Call& c, std::string target) {
  HttpRequest moved = c.request;
  moved.target = std::move(target);
  return c.upstream.handle(moved);
}

HttpResponse django_server_error() {
  return {500,
          "text/html",
          {},
          "\n<!doctype html>\n<html lang=\"en\">\n<head>\n  <title>Server Error (500)</title>\n"
          "</head>\n<body>\n  <h1>Server Error (500)</h1><p></p>\n</body>\n</html>\n"};
}

// The records a mutation picked, told by their absolute index in the collection as the unfiltered pages list
// them; the marks of the listed records' image paths and ids, kept for the requests that follow (a
// picture's URL and a detail route's path do not say where the record is listed). Cleared before each run.
struct Picked {
  std::function<bool(std::uint64_t index)> picks;
  std::mutex mutex;
  std::set<std::string> paths;
  std::set<std::int64_t> ids;

  void mark(const Call& c, const HttpResponse& r) {
    if (!is_collection_page(c) || r.status != 200) return;
    const auto page = broken::page_of(r);
    if (!page || !page->contains("results") || !(*page)["results"].is_array()) return;
    const std::uint64_t offset = effective_offset(c);
    const Json& results = (*page)["results"];
    const std::lock_guard lock(mutex);
    for (std::size_t i = 0; i < results.size(); ++i) {
      const Json& record = results[i];
      if (!record.is_object() || !picks(offset + i)) continue;
      if (record.contains("id") && record["id"].is_number_integer())
        ids.insert(record["id"].get<std::int64_t>());
      if (record.contains("image") && record["image"].is_string()) {
        const std::string image = record["image"];
        const std::size_t scheme = image.find("://");
        const std::size_t path = image.find('/', scheme == std::string::npos ? 0 : scheme + 3);
        if (path != std::string::npos) paths.insert(image.substr(path));
      }
    }
  }
  bool picture_picked(const Call& c) {
    const std::lock_guard lock(mutex);
    return paths.contains(std::string(path_of(c.request)));
  }
  bool id_picked(std::uint64_t id) {
    const std::lock_guard lock(mutex);
    return ids.contains(static_cast<std::int64_t>(id));
  }
  void clear() {
    const std::lock_guard lock(mutex);
    paths.clear();
    ids.clear();
  }
};

// Which records a mutation picks: every one, one in n over the collection, the first page's, or a deep
// page's (only a full walk lists it on a page of its own; the quick plan's long page may list it too).
struct Pick {
  std::string name;
  Visibility visibility = Visibility::Quick;
  std::function<bool(std::uint64_t)> picks;
};

Pick every_record() {
  return {"of every record", Visibility::Quick, [](std::uint64_t) { return true; }};
}

Pick first_page_records() {
  return {"of the first page's records", Visibility::Quick, [](std::uint64_t i) { return i < 12; }};
}

// A picture's pick: the quick plan reads a sample whole, every record of the first page among them, so one
// record in n is quick-visible when n is at most 12 (the first page holds every residue); a deep page's
// records, and one in more than 12, are full-visible (the walk judges every picture's head, and reads its
// first and last page and a spread sample whole).
Pick picture_pick(const World& w, common::Pcg32& rng) {
  const std::uint32_t kind = rng.below(4);
  if (kind == 0) return every_record();
  if (kind == 1) {
    const auto n = static_cast<std::uint64_t>(rng.between(3, 40));
    const std::uint64_t r = rng.below(static_cast<std::uint32_t>(std::min<std::uint64_t>(n, w.count)));
    return {"of one record in " + std::to_string(n), n <= 12 ? Visibility::Quick : Visibility::Full,
            [n, r](std::uint64_t i) { return i % n == r; }};
  }
  const std::uint64_t pages = w.last_offset() / 12;
  if (kind == 2 || pages < 3) return first_page_records();
  const std::uint64_t offset =
      12 * static_cast<std::uint64_t>(rng.between(2, static_cast<std::int64_t>(pages) - 1));
  return {"of a deep page's records (offset " + std::to_string(offset) + ")", Visibility::Full,
          [offset](std::uint64_t i) { return i >= offset && i < offset + 12; }};
}

// A detail route's pick: the quick plan opens the first page's first, middle and last records, so one
// record in n could escape it.
Pick detail_pick(common::Pcg32& rng) {
  return rng.chance(50) ? every_record() : first_page_records();
}

// A mutant that marks the records `pick` chooses as their pages are listed, and changes the answers that
// `target` says belong to a marked record.
Mutant picked_mutant(std::string klass, const std::string& what, const Pick& pick,
                     std::function<bool(const Call&, Picked&)> target, Mutate mutate) {
  auto picked = std::make_shared<Picked>();
  picked->picks = pick.picks;
  Mutant m;
  m.klass = std::move(klass);
  m.name = what + " " + pick.name;
  m.visibility = pick.visibility;
  m.applies = [picked, target](const Call& c) { return is_collection_page(c) || target(c, *picked); };
  m.mutate = [picked, target, mutate = std::move(mutate)](const Call& c, HttpResponse& r, Wire& wire) {
    if (is_collection_page(c)) return picked->mark(c, r);
    mutate(c, r, wire);
  };
  m.reset = [picked] { picked->clear(); };
  return m;
}

// --- pictures: the files at the image URLs --------------------------------------------------------------

struct PictureBreak {
  std::string what;
  Mutate mutate;
};

bool content_type_is(const HttpResponse& r, std::string_view type) {
  return r.content_type.starts_with(type);
}

std::vector<PictureBreak> picture_breaks() {
  const auto when_served = [](Mutate m) {
    return [m = std::move(m)](const Call& c, HttpResponse& r, Wire& w) {
      if (r.status == 200 || r.status == 206) m(c, r, w);
    };
  };
  return {
      {"Django's 404 page for the pictures", when_served([](const Call& c, HttpResponse& r, Wire&) {
         r = answer_at(c, "/media/no-such-file.png");
       })},
      {"a server error for the pictures",
       when_served([](const Call&, HttpResponse& r, Wire&) { r = django_server_error(); })},
      {"403 from a private bucket for the pictures", when_served([](const Call&, HttpResponse& r, Wire&) {
         r = {403, "application/xml", {}, "<?xml version=\"1.0\"?><Error><Code>AccessDenied</Code></Error>"};
       })},
      {"application/octet-stream as the pictures' type",
       when_served([](const Call&, HttpResponse& r, Wire&) { r.content_type = "application/octet-stream"; })},
      {"another picture type named than the record's", when_served([](const Call&, HttpResponse& r, Wire&) {
         r.content_type = content_type_is(r, "image/png") ? "image/jpeg" : "image/png";
       })},
      {"the bytes of another picture type", when_served([](const Call&, HttpResponse& r, Wire&) {
         r.body = content_type_is(r, "image/gif") ? std::string("\x89PNG\r\n\x1a\n\0\0\0\rIHDR", 16)
                                                  : std::string("GIF89a\1\0\1\0\0\0\0;", 13);
       })},
      {"an app's HTML page, typed as the picture", when_served([](const Call&, HttpResponse& r, Wire&) {
         r.body =
             "<!doctype html>\n<html><head><title>Gallery</title></head><body><div id=\"root\"></div>"
             "</body></html>\n";
       })},
      {"an empty body", when_served([](const Call&, HttpResponse& r, Wire&) { r.body.clear(); })},
      {"a redirect to a file that is not there", when_served([](const Call& c, HttpResponse& r, Wire&) {
         r = {302,
              "text/html",
              {{"Location", "/media/moved" + std::string(path_of(c.request).substr(6))}},
              ""};
       })},
      {"a redirect to itself", when_served([](const Call& c, HttpResponse& r, Wire&) {
         r = {302, "text/html", {{"Location", std::string(path_of(c.request))}}, ""};
       })},
      {"the pictures cut to half their bytes (an aborted copy)",
       when_served([](const Call&, HttpResponse& r, Wire&) { r.body.resize(r.body.size() / 2); })},
      {"WebP to an Accept naming it, without Vary: Accept (a negotiating CDN a shared cache ignores)",
       when_served([](const Call& c, HttpResponse& r, Wire&) {
         if (c.request.header("Accept").value_or("").find("image/webp") == std::string::npos) return;
         if (content_type_is(r, "image/webp")) return;
         r.content_type = "image/webp";
         r.body = std::string(
             "RIFF\x1a\0\0\0WEBPVP8L\x0d\0\0\0\x2f\0\0\0\x10\x07\x10\x11\x11\x88\x88\xfe\x07\0", 34);
       })},
  };
}

std::vector<Maker> pictures() {
  std::vector<Maker> out;
  for (PictureBreak& b : picture_breaks())
    out.push_back([b](const World& w, common::Pcg32& rng) {
      return picked_mutant(
          "pictures", b.what, picture_pick(w, rng),
          [](const Call& c, Picked& p) { return is_picture(c) && p.picture_picked(c); }, b.mutate);
    });
  return out;
}

// --- detail: a listed record opened on its detail route, and the nested route's records ----------------

struct RecordBreak {
  std::string what;
  std::function<void(Json&)> edit;
};

std::vector<RecordBreak> record_breaks() {
  return {
      {"alt \"(no text)\"", [](Json& r) { r["alt"] = "(no text)"; }},
      {"another id",
       [](Json& r) {
         if (r["id"].is_number_integer()) r["id"] = r["id"].get<std::int64_t>() + 1;
       }},
      {"order + 1",
       [](Json& r) {
         if (r["order"].is_number_integer()) r["order"] = r["order"].get<std::int64_t>() + 1;
       }},
      {"the image on another origin",
       [](Json& r) {
         if (r["image"].is_string())
           r["image"] = broken::with_origin(r["image"].get<std::string>(), "http://cdn.invalid");
       }},
      {"no mime_type key", [](Json& r) { r.erase("mime_type"); }},
      {"a sixteenth key", [](Json& r) { r["thumbnail"] = nullptr; }},
  };
}

std::vector<Maker> detail() {
  std::vector<Maker> out;
  const auto on_detail = [](const Call& c, Picked& p) {
    const auto id = detail_id(c);
    return id && p.id_picked(*id);
  };
  for (const RecordBreak& b : record_breaks())
    out.push_back([b, on_detail](const World&, common::Pcg32& rng) {
      return picked_mutant("detail", "the detail route's record with " + b.what, detail_pick(rng), on_detail,
                           [edit = b.edit](const Call&, HttpResponse& r, Wire&) {
                             // A record, not a page: edit_page wants results.
                             auto record = broken::page_of(r);
                             if (r.status != 200 || !record || !record->is_object()) return;
                             edit(*record);
                             broken::set_body(r, *record);
                           });
    });
  out.push_back([on_detail](const World&, common::Pcg32& rng) {
    return picked_mutant("detail", "DRF's 404 on the detail route", detail_pick(rng), on_detail,
                         [](const Call&, HttpResponse& r, Wire&) {
                           r = {404, "application/json", {{"Vary", "Accept"}}, R"({"detail":"Not found."})"};
                         });
  });
  out.push_back([on_detail](const World&, common::Pcg32& rng) {
    return picked_mutant("detail", "a server error on the detail route", detail_pick(rng), on_detail,
                         [](const Call&, HttpResponse& r, Wire&) { r = django_server_error(); });
  });
  // Records past the first page, opened only by a full walk (its sample spread over the collection).
  out.push_back([on_detail](const World& w, common::Pcg32&) {
    const Pick past{"of every record past the first page", Visibility::Full,
                    [count = w.count](std::uint64_t i) { return i >= 12 && i < count; }};
    return picked_mutant("detail", "DRF's 404 on the detail route", past, on_detail,
                         [](const Call&, HttpResponse& r, Wire&) {
                           r = {404, "application/json", {{"Vary", "Accept"}}, R"({"detail":"Not found."})"};
                         });
  });
  for (const RecordBreak& b : record_breaks())
    out.push_back([b](const World&, common::Pcg32&) {
      return make("detail", "every record with " + b.what, nested_route(),
                  on_page([edit = b.edit](const Call&, Json& page) {
                    if (page["results"].is_array())
                      for (Json& record : page["results"])
                        if (record.is_object()) edit(record);
                  }));
    });
  return out;
}

// --- validators: ETags and Last-Modified that a client cache would misuse --------------------------------

std::string tag_of(std::string_view text) {
  return "\"" + std::to_string(std::hash<std::string_view>{}(text)&0xffffffffffffu) + "\"";
}

bool conditional(const Call& c) {
  return c.request.header("If-None-Match") || c.request.header("If-Modified-Since");
}

// Validators on every 200 answer; `answer304` decides, for a conditional request, whether to answer 304;
// `stale` (may be empty) changes a conditional request's 200 answer.
Mutate with_validators(std::function<std::string(const Call&, const HttpResponse&)> etag,
                       std::function<bool(const Call&, const std::string& tag)> answer304,
                       Mutate stale = {}) {
  return [=](const Call& c, HttpResponse& r, Wire& w) {
    if (r.status != 200) return;
    const std::string tag = etag(c, r);
    if (conditional(c) && answer304(c, tag)) {
      r = {304, "", {{"ETag", tag}}, ""};
      return;
    }
    if (conditional(c) && stale) stale(c, r, w);
    set_header(r, "ETag", tag);
    set_header(r, "Last-Modified", "Sat, 22 Nov 2025 07:00:00 GMT");
  };
}

Position answers_of_the_api() {
  return {"on the API's answers", Visibility::Quick,
          [](const Call& c) { return is_get(c) && path_of(c.request).starts_with("/edw/api/"); }};
}

std::string query_without_format(const Call& c) {
  std::string out(path_of(c.request));
  for (const auto& [k, v] : c.params)
    if (k != "format") out += "&" + k + "=" + v;
  return out;
}

std::vector<Maker> validators() {
  const auto by_body = [](const Call&, const HttpResponse& r) { return tag_of(r.body); };
  const auto matches = [](const Call& c, const std::string& tag) {
    return c.request.header("If-None-Match") == tag;
  };
  return {
      [matches](const World&, common::Pcg32&) {
        return make(
            "validators", "one ETag for every answer, and 304 when it is sent back", answers_of_the_api(),
            with_validators([](const Call&, const HttpResponse&) { return std::string("\"v1\""); }, matches));
      },
      [matches](const World&, common::Pcg32&) {
        return make(
            "validators", "an ETag of the URL without format (the representation ignored), 304 on it",
            answers_of_the_api(),
            with_validators(
                [](const Call& c, const HttpResponse&) { return tag_of(query_without_format(c)); }, matches));
      },
      [](const World&, common::Pcg32&) {
        return make("validators", "ETags of the body, and 304 to any If-None-Match", answers_of_the_api(),
                    with_validators([](const Call&, const HttpResponse& r) { return tag_of(r.body); },
                                    [](const Call& c, const std::string&) {
                                      return c.request.header("If-None-Match").has_value();
                                    }));
      },
      [by_body](const World& w, common::Pcg32&) {
        // A stale cache entry: the page as it was 12 records ago.
        return make("validators", "a conditional request answered 200 with another page's records",
                    answers_of_the_api(),
                    with_validators(
                        by_body, [](const Call&, const std::string&) { return false; },
                        on_page([count = w.count](const Call& c, Json& p) {
                          common::QueryParams q = c.params;
                          const std::uint64_t offset = effective_offset(c);
                          broken::set_param(q, "offset", std::to_string((offset + 12) % count));
                          if (const auto other = broken::page_of(c.answer_with(q)))
                            if (other->contains("results")) p["results"] = other->at("results");
                        })));
      },
  };
}

// --- redirects: the path without its trailing slash ----------------------------------------------------

bool is_slashless(const Call& c) {
  return is_get(c) && path_of(c.request) == kCollection.substr(0, kCollection.size() - 1);
}

Position slashless_requests() {
  return {"on the slashless path", Visibility::Quick, is_slashless};
}

std::string query_text(const common::QueryParams& params) {
  std::string out;
  for (const auto& [k, v] : params)
    out += (out.empty() ? "?" : "&") + k + "=" + v;
  return out;
}

Mutant redirect_to(const std::string& what, std::function<std::string(const Call&)> location,
                   int status = 301) {
  return make("redirects", what, slashless_requests(), [=](const Call& c, HttpResponse& r, Wire&) {
    r = {status, "text/html; charset=utf-8", {{"Location", location(c)}}, ""};
  });
}

std::vector<Maker> redirects() {
  return {
      [](const World&, common::Pcg32&) {
        return make(
            "redirects", "Django's 404 page", slashless_requests(),
            [](const Call& c, HttpResponse& r, Wire&) { r = answer_at(c, "/edw/api/no-such-route/"); });
      },
      [](const World&, common::Pcg32&) {
        return redirect_to("a 301 without the query", [](const Call&) { return std::string(kCollection); });
      },
      [](const World&, common::Pcg32&) {
        return redirect_to("a 301 to another route",
                           [](const Call& c) { return "/edw/api/entities/" + query_text(c.params); });
      },
      [](const World&, common::Pcg32&) {
        return redirect_to("a 301 with offset + 1", [](const Call& c) {
          common::QueryParams q = c.params;
          broken::set_param(q, "offset", std::to_string(effective_offset(c) + 1));
          return std::string(kCollection) + query_text(q);
        });
      },
      [](const World&, common::Pcg32&) {
        return redirect_to("a 301 to itself", [](const Call& c) { return std::string(c.request.target); });
      },
      [](const World&, common::Pcg32&) {
        // Port 9 (discard) on loopback: refused at once, where a name that does not resolve could wait on
        // DNS.
        return redirect_to("a 301 to another origin where nothing listens", [](const Call& c) {
          return "http://127.0.0.1:9" + std::string(kCollection) + query_text(c.params);
        });
      },
      [](const World&, common::Pcg32&) {
        return make(
            "redirects", "the first page served, the query ignored", slashless_requests(),
            [](const Call& c, HttpResponse& r, Wire&) { r = answer_at(c, std::string(kCollection)); });
      },
  };
}

// --- filter input: ?entity= values that are not an entity's id -------------------------------------------

Position entity_valued(std::string value) {
  return {"on ?entity=" + (value.empty() ? std::string("(empty)") : value), Visibility::Quick,
          [value](const Call& c) {
            const std::string* entity = common::last_value(c.params, "entity");
            return is_get(c) && entity != nullptr && *entity == value;
          }};
}

Position nested_with_non_number() {
  return {"on the nested route with a pk that is not a number", Visibility::Quick, [](const Call& c) {
            const std::string_view path = path_of(c.request);
            return is_get(c) && is_nested(c) &&
                   path.substr(18, path.size() - 18 - 8).find_first_not_of("0123456789") !=
                       std::string_view::npos;
          }};
}

// --- settings: what a deployment's settings show a client (DEBUG, CORS) ----------------------------------

Position unknown_api_url() {
  return {"on an unknown URL under the API root", Visibility::Quick, [](const Call& c) {
            const std::string_view path = path_of(c.request);
            return is_get(c) && path.starts_with("/edw/api/no-such-route");
          }};
}

Position foreign_origin() {
  return {"on a request from another site (Origin)", Visibility::Quick,
          [](const Call& c) { return c.request.header("Origin").has_value(); }};
}

constexpr std::string_view kDebug404 =
    "<!DOCTYPE html><html><body><h1>Page not found (404)</h1><p>Using the URLconf defined in "
    "<code>project.urls"
    "</code>, Django tried these URL patterns, in this order:</p><ol><li>admin/</li></ol><p>You're seeing "
    "this "
    "error because you have <code>DEBUG = True</code> in your Django settings file.</p></body></html>";

std::vector<Maker> settings() {
  return {
      [](const World&, common::Pcg32&) {
        return make("settings", "Django's technical 404 page (DEBUG = True)", unknown_api_url(),
                    [](const Call&, HttpResponse& r, Wire&) {
                      r = {404, "text/html; charset=utf-8", {}, std::string(kDebug404)};
                    });
      },
      [](const World&, common::Pcg32& rng) {
        const bool credentials = rng.chance(50);
        return make("settings",
                    credentials ? "the Origin echoed with Access-Control-Allow-Credentials: true"
                                : "the Origin echoed without Vary: Origin",
                    foreign_origin(), [credentials](const Call& c, HttpResponse& r, Wire&) {
                      r.headers.emplace_back("Access-Control-Allow-Origin",
                                             c.request.header("Origin").value_or(""));
                      if (credentials) {
                        r.headers.emplace_back("Access-Control-Allow-Credentials", "true");
                        r.headers.emplace_back("Vary", "Origin");
                      }
                    });
      },
  };
}

std::vector<Maker> filter_input() {
  const auto positions = [] {
    return std::vector<Position>{entity_valued("abc"), entity_valued("-1"),
                                 entity_valued("9223372036854775807"), nested_with_non_number()};
  };
  return {
      [positions](const World&, common::Pcg32& rng) {
        return make("filter-input", "a server error", one_of(rng, positions()),
                    [](const Call&, HttpResponse& r, Wire&) { r = django_server_error(); });
      },
      [positions](const World&, common::Pcg32& rng) {
        return make(
            "filter-input", "the whole collection's first page", one_of(rng, positions()),
            [](const Call& c, HttpResponse& r, Wire&) { r = answer_at(c, std::string(kCollection)); });
      },
      [](const World&, common::Pcg32&) {
        return make("filter-input", "a server error", entity_valued(""),
                    [](const Call&, HttpResponse& r, Wire&) { r = django_server_error(); });
      },
  };
}

}  // namespace

std::vector<Maker> picture_class() {
  return pictures();
}
std::vector<Maker> detail_class() {
  return detail();
}
std::vector<Maker> validator_class() {
  return validators();
}
std::vector<Maker> redirect_class() {
  return redirects();
}
std::vector<Maker> filter_input_class() {
  return filter_input();
}
std::vector<Maker> settings_class() {
  return settings();
}

}  // namespace entimg::mutants::detail
