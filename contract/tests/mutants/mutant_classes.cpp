// The mutant classes. Each class is a list of makers; a maker draws one mutant (its parameters and its
// position) from the rng. Every mutant breaks the contract wherever it applies: none may be
// equivalent to a correct answer, so a survivor is a gap in the suite.
#include <algorithm>

#include "class_support.hpp"
#include "entimg/mock/behaviour.hpp"

namespace entimg::mutants {
namespace detail {

Mutant make(std::string klass, const std::string& what, const Position& where, Mutate mutate,
            std::optional<Visibility> only) {
  return {std::move(klass), what + " " + where.name, only.value_or(where.visibility),
          where.matches,    std::move(mutate),       {}};
}

Mutate on_page(std::function<void(const Call&, broken::Json&)> edit) {
  return [edit = std::move(edit)](const Call& c, mock::HttpResponse& r, Wire&) {
    broken::edit_page(r, [&](broken::Json& p) { edit(c, p); });
  };
}

}  // namespace detail

namespace {

using broken::edit_link;
using broken::edit_links;
using broken::edit_page;
using broken::Json;
using broken::number_param;
using broken::page_of;
using broken::remove_param;
using broken::set_header;
using broken::set_param;
using detail::make;
using detail::Maker;
using detail::Mutate;
using detail::on_page;
using detail::one_of;
using detail::Position;
using mock::HttpResponse;

std::int64_t plus_or_minus_one(common::Pcg32& rng) {
  return rng.chance(50) ? 1 : -1;
}
std::string signed_text(std::int64_t d) {
  return d > 0 ? "+" + std::to_string(d) : std::to_string(d);
}

// Adds d to a whole-number parameter of a link (absent counts as 0).
std::string shift_param(const std::string& url, std::string_view key, std::int64_t d) {
  return edit_link(url, [&](common::QueryParams& q) {
    const std::int64_t now = static_cast<std::int64_t>(number_param(q, key).value_or(0));
    set_param(q, key, std::to_string(now + d));
  });
}

void edit_one_link(Json& page, std::string_view key,
                   const std::function<std::string(const std::string&)>& edit) {
  edit_links(page, [&](std::string_view k, const std::string& url) { return k == key ? edit(url) : url; });
}

std::uint64_t results_size(const Json& page) {
  const auto it = page.find("results");
  return it != page.end() && it->is_array() ? it->size() : 0;
}

// The record at index i of the page, clamped to the last one; nullptr on an empty page.
Json* record_at(Json& page, std::uint64_t i) {
  const std::uint64_t n = results_size(page);
  if (n == 0) return nullptr;
  Json& r = page["results"][std::min(i, n - 1)];
  return r.is_object() ? &r : nullptr;
}

// The page's records served from another window of the collection (links kept).
void serve_window(const Call& c, Json& page, std::uint64_t offset, std::uint64_t length) {
  common::QueryParams q = c.params;
  set_param(q, "offset", std::to_string(offset));
  set_param(q, "limit", std::to_string(length));
  if (const auto other = page_of(c.answer_with(q)); other && other->contains("results"))
    page["results"] = other->at("results");
}

// A record edit at one place: one record in n over the whole collection (a position the quick
// plan's long page holds), or one record of a page.
Mutant record_mutant(std::string klass, const std::string& what, const World& w, common::Pcg32& rng,
                     std::function<void(Json&)> edit) {
  if (rng.chance(50)) {
    const auto n = static_cast<std::uint64_t>(rng.between(3, 40));
    const std::uint64_t r = rng.below(static_cast<std::uint32_t>(std::min<std::uint64_t>(n, w.count)));
    return make(std::move(klass), what + " on one record in " + std::to_string(n), detail::every_page(),
                on_page([=](const Call& c, Json& p) {
                  const std::uint64_t offset = detail::effective_offset(c);
                  for (std::uint64_t i = 0; i < results_size(p); ++i)
                    if ((offset + i) % n == r && p["results"][i].is_object()) edit(p["results"][i]);
                }));
  }
  const std::uint64_t i = rng.below(12);
  return make(std::move(klass), what + " on record " + std::to_string(i) + " of a page",
              detail::any_page(w, rng), on_page([=](const Call&, Json& p) {
                if (Json* record = record_at(p, i)) edit(*record);
              }));
}

// --- arithmetic: every rule's number off by one, each way --------------------------------------------

std::vector<Maker> arithmetic() {
  return {
      [](const World& w, common::Pcg32& rng) {
        const std::int64_t d = plus_or_minus_one(rng);
        const Position where =
            one_of(rng, std::vector<Position>{detail::every_page(), detail::first_page(),
                                              detail::second_page(), detail::last_page(w)});
        return make("arithmetic", "count " + signed_text(d), where, on_page([d](const Call&, Json& p) {
                      if (p["count"].is_number_unsigned())
                        p["count"] = static_cast<std::int64_t>(p["count"].get<std::uint64_t>()) + d;
                    }));
      },
      [](const World& w, common::Pcg32& rng) {
        const std::int64_t d = plus_or_minus_one(rng);
        return make("arithmetic", "next's offset " + signed_text(d), detail::page_with_next(w, rng),
                    on_page([d](const Call&, Json& p) {
                      edit_one_link(p, "next",
                                    [d](const std::string& u) { return shift_param(u, "offset", d); });
                    }));
      },
      [](const World& w, common::Pcg32& rng) {
        const std::int64_t d = plus_or_minus_one(rng);
        return make("arithmetic", "previous's offset " + signed_text(d), detail::page_with_previous(w, rng),
                    on_page([d](const Call&, Json& p) {
                      edit_one_link(p, "previous",
                                    [d](const std::string& u) { return shift_param(u, "offset", d); });
                    }));
      },
      [](const World& w, common::Pcg32& rng) {
        const std::int64_t d = plus_or_minus_one(rng);
        const std::string key = rng.chance(50) ? "next" : "previous";
        const Position where =
            key == "next" ? detail::page_with_next(w, rng) : detail::page_with_previous(w, rng);
        return make("arithmetic", key + "'s limit " + signed_text(d), where,
                    on_page([=](const Call&, Json& p) {
                      edit_one_link(p, key, [d](const std::string& u) { return shift_param(u, "limit", d); });
                    }));
      },
      [](const World& w, common::Pcg32& rng) {
        // One record fewer anywhere; one more where a following record exists.
        if (rng.chance(50))
          return make("arithmetic", "one record fewer", detail::any_page(w, rng),
                      on_page([](const Call&, Json& p) {
                        if (results_size(p) > 0) p["results"].erase(p["results"].size() - 1);
                      }));
        const Position where = one_of(rng, std::vector<Position>{detail::first_page(), detail::second_page(),
                                                                 detail::format_json_pages()});
        return make("arithmetic", "one record more", where, on_page([](const Call& c, Json& p) {
                      serve_window(c, p, detail::effective_offset(c), results_size(p) + 1);
                    }));
      },
      [](const World& w, common::Pcg32&) {
        // next null one page early: offset + limit == count - something, on the page before the last.
        const std::uint64_t before_last = w.last_offset() - 12;
        const Position where{"on the page before the last (offset " + std::to_string(before_last) + ")",
                             before_last == 0 || before_last == 12 ? Visibility::Quick : Visibility::Full,
                             [before_last](const Call& c) { return detail::is_walk_page(c, before_last); }};
        return make("arithmetic", "next null one page early", where,
                    on_page([](const Call&, Json& p) { p["next"] = nullptr; }));
      },
      [](const World& w, common::Pcg32&) {
        const std::uint64_t past = w.last_offset() + 12;
        return make("arithmetic", "next to offset " + std::to_string(past) + " (past count)",
                    detail::last_page(w), on_page([past](const Call&, Json& p) {
                      if (!p["previous"].is_string()) return;
                      p["next"] = edit_link(p["previous"].get<std::string>(), [&](common::QueryParams& q) {
                        set_param(q, "limit", "12");
                        set_param(q, "offset", std::to_string(past));
                      });
                    }));
      },
      [](const World&, common::Pcg32& rng) {
        if (rng.chance(50))
          return make("arithmetic", "previous set (offset 0)", detail::first_page(),
                      on_page([](const Call&, Json& p) {
                        if (p["next"].is_string())
                          p["previous"] = edit_link(p["next"].get<std::string>(), [](common::QueryParams& q) {
                            remove_param(q, "offset");
                          });
                      }));
        return make("arithmetic", "previous null", detail::second_page(),
                    on_page([](const Call&, Json& p) { p["previous"] = nullptr; }));
      },
  };
}

// --- links: another origin, scheme, port or path ---------------------------------------------------

std::string authority_of(const std::string& url) {
  const std::size_t start = url.find("://");
  if (start == std::string::npos) return "";
  const std::size_t end = url.find('/', start + 3);
  return url.substr(start + 3, end == std::string::npos ? std::string::npos : end - start - 3);
}

std::string path_and_query(const std::string& url) {
  const std::size_t start = url.find("://");
  const std::size_t path = start == std::string::npos ? std::string::npos : url.find('/', start + 3);
  return path == std::string::npos ? "/" : url.substr(path);
}

std::string other_port(const std::string& authority) {
  const std::size_t colon = authority.rfind(':');
  if (colon == std::string::npos) return authority + ":8080";
  const int port = std::stoi(authority.substr(colon + 1));
  return authority.substr(0, colon + 1) + std::to_string(port == 65535 ? 1 : port + 1);
}

struct UrlChange {
  std::string what;
  std::function<std::string(const std::string&)> change;
};

std::vector<UrlChange> url_changes() {
  return {
      {"on another host",
       [](const std::string& u) { return broken::with_origin(u, "http://internal-host:8000"); }},
      {"with scheme https",
       [](const std::string& u) { return "https://" + authority_of(u) + path_and_query(u); }},
      {"on another port",
       [](const std::string& u) { return "http://" + other_port(authority_of(u)) + path_and_query(u); }},
      {"on a path without its trailing slash",
       [](const std::string& u) {
         std::string out = u;
         if (const std::size_t at = out.find("entities-images/"); at != std::string::npos)
           out.erase(at + std::string_view("entities-images").size(), 1);
         return out;
       }},
      {"on another path",
       [](const std::string& u) {
         std::string out = u;
         if (const std::size_t at = out.find("/edw/api/"); at != std::string::npos)
           out.replace(at, 9, "/api/v2/");
         return out;
       }},
  };
}

std::vector<Maker> links() {
  return {
      [](const World& w, common::Pcg32& rng) {
        const UrlChange change = one_of(rng, url_changes());
        const std::string key = rng.chance(50) ? "next" : "previous";
        const Position where =
            key == "next" ? detail::page_with_next(w, rng) : detail::page_with_previous(w, rng);
        return make("links", key + " " + change.what, where,
                    on_page([=](const Call&, Json& p) { edit_one_link(p, key, change.change); }));
      },
      [](const World& w, common::Pcg32& rng) {
        std::vector<UrlChange> origins = url_changes();
        origins.resize(3);  // the origin changes: an image's path is file's business (cross-field)
        const UrlChange change = one_of(rng, origins);
        return record_mutant("links", "image " + change.what, w, rng, [change](Json& r) {
          if (r["image"].is_string()) r["image"] = change.change(r["image"].get<std::string>());
        });
      },
  };
}

// --- parameters of the links: dropped, added, encoded wrongly -------------------------------------

std::string double_encoded(const std::string& url) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  const auto encode = [](std::string_view text) {
    std::string out;
    for (const char ch : text) {
      const auto c = static_cast<unsigned char>(ch);
      out.append({'%', '2', '5', kHex[c >> 4], kHex[c & 15]});  // %XX, its % encoded again
    }
    return out;
  };
  const std::size_t q = url.find('?');
  if (q == std::string::npos) return url;
  std::string out = url.substr(0, q + 1);
  bool first = true;
  for (const auto& [k, v] : common::parse_query(std::string_view(url).substr(q + 1))) {
    out += (first ? "" : "&") + k + "=" + encode(v);
    first = false;
  }
  return out;
}

std::vector<Maker> parameters() {
  return {
      [](const World&, common::Pcg32& rng) {
        const std::string key = rng.chance(50) ? "next" : "previous";
        return make("parameters", key + " drops format=json", detail::format_json_pages(),
                    on_page([=](const Call&, Json& p) {
                      edit_one_link(p, key, [](const std::string& u) {
                        return edit_link(u, [](common::QueryParams& q) { remove_param(q, "format"); });
                      });
                    }));
      },
      [](const World& w, common::Pcg32& rng) {
        return make("parameters", "next drops limit", detail::page_with_next(w, rng),
                    on_page([](const Call&, Json& p) {
                      edit_one_link(p, "next", [](const std::string& u) {
                        return edit_link(u, [](common::QueryParams& q) { remove_param(q, "limit"); });
                      });
                    }));
      },
      [](const World& w, common::Pcg32& rng) {
        const std::pair<std::string, std::string> extra =
            one_of(rng, std::vector<std::pair<std::string, std::string>>{
                            {"page", "2"}, {"ordering", "id"}, {"format", "json"}});
        const std::string key = rng.chance(50) ? "next" : "previous";
        const Position where =
            key == "next" ? detail::page_with_next(w, rng) : detail::page_with_previous(w, rng);
        // format=json is added only where the request did not send it.
        return make("parameters", key + " adds " + extra.first + "=" + extra.second, where,
                    on_page([=](const Call& c, Json& p) {
                      if (common::last_value(c.params, extra.first) != nullptr) return;
                      edit_one_link(p, key, [&](const std::string& u) {
                        return edit_link(
                            u, [&](common::QueryParams& q) { q.emplace_back(extra.first, extra.second); });
                      });
                    }));
      },
      [](const World& w, common::Pcg32& rng) {
        const std::string key = rng.chance(50) ? "next" : "previous";
        const Position where =
            key == "next" ? detail::page_with_next(w, rng) : detail::page_with_previous(w, rng);
        return make("parameters", key + "'s values percent-encoded twice (%2531%2532 for 12)", where,
                    on_page([=](const Call&, Json& p) { edit_one_link(p, key, double_encoded); }));
      },
  };
}

// --- records: duplicated, dropped, reordered ---------------------------------------------------------

std::vector<Maker> records() {
  return {
      [](const World& w, common::Pcg32& rng) {
        const std::uint64_t i = 1 + rng.below(11);
        return make("records", "record " + std::to_string(i) + " a copy of the one before",
                    detail::any_page(w, rng), on_page([i](const Call&, Json& p) {
                      const std::uint64_t n = results_size(p);
                      if (n >= 2) p["results"][std::min(i, n - 1)] = p["results"][std::min(i, n - 1) - 1];
                    }));
      },
      [](const World& w, common::Pcg32& rng) {
        const std::uint64_t i = rng.below(12);
        return make("records", "record " + std::to_string(i) + " dropped", detail::any_page(w, rng),
                    on_page([i](const Call&, Json& p) {
                      const std::uint64_t n = results_size(p);
                      if (n > 0) p["results"].erase(std::min(i, n - 1));
                    }));
      },
      [](const World& w, common::Pcg32& rng) {
        const std::uint64_t i = rng.below(11);
        return make("records", "records " + std::to_string(i) + " and " + std::to_string(i + 1) + " swapped",
                    detail::any_page(w, rng), on_page([i](const Call&, Json& p) {
                      const std::uint64_t n = results_size(p);
                      if (n < 2) return;
                      const std::uint64_t at = std::min(i, n - 2);
                      std::swap(p["results"][at], p["results"][at + 1]);
                    }));
      },
      [](const World& w, common::Pcg32& rng) {
        // The window one record back: the page repeats the previous page's last record (and the
        // first page's last is compared with the second page's first in quick mode).
        const std::optional<Position> deep = detail::deep_page(w, rng);
        const Position where = deep && rng.chance(50) ? *deep : detail::second_page();
        return make("records", "the window one record back (a record seen twice)", where,
                    on_page([](const Call& c, Json& p) {
                      serve_window(c, p, detail::effective_offset(c) - 1, results_size(p));
                    }));
      },
      [](const World& w, common::Pcg32& rng) {
        // The window one record on, on a page not the last: its length holds, one record is never
        // served, and the next page's first record comes twice: only the walk sees either.
        const std::optional<Position> deep = detail::deep_page(w, rng);
        const Position where = deep && rng.chance(50) ? *deep : detail::second_page();
        return make("records", "the window one record on (a record never served)", where,
                    on_page([](const Call& c, Json& p) {
                      serve_window(c, p, detail::effective_offset(c) + 1, results_size(p));
                    }),
                    Visibility::Full);
      },
  };
}

// --- record fields: mistyped, out of range, missing, extra -------------------------------------------

struct FieldChange {
  std::string what;
  std::function<void(Json&)> change;
};

std::vector<FieldChange> field_changes() {
  return {
      {"id as a string", [](Json& r) { r["id"] = r["id"].dump(); }},
      {"id 0", [](Json& r) { r["id"] = 0; }},
      {"file_size as a string", [](Json& r) { r["file_size"] = r["file_size"].dump(); }},
      {"file_size -1", [](Json& r) { r["file_size"] = -1; }},
      {"order 1.5", [](Json& r) { r["order"] = 1.5; }},
      {"entity null", [](Json& r) { r["entity"] = nullptr; }},
      {"key as a string", [](Json& r) { r["key"] = "7"; }},
      {"name a number", [](Json& r) { r["name"] = 7; }},
      {"alt null", [](Json& r) { r["alt"] = nullptr; }},
      {"original_filename an array", [](Json& r) { r["original_filename"] = Json::array({"a.jpg"}); }},
      {"subject_location an object",
       [](Json& r) {
         r["subject_location"] = Json::object({{"x", 1}});
       }},
      {"mime_type text/plain", [](Json& r) { r["mime_type"] = "text/plain"; }},
      {"image not a URL", [](Json& r) { r["image"] = "media/x.jpg"; }},
  };
}

std::vector<Maker> record_fields() {
  static const std::vector<std::string> kFields = {"id",
                                                   "image",
                                                   "file",
                                                   "original_filename",
                                                   "file_size",
                                                   "author",
                                                   "name",
                                                   "default_caption",
                                                   "alt",
                                                   "description",
                                                   "subject_location",
                                                   "mime_type",
                                                   "order",
                                                   "key",
                                                   "entity"};
  return {
      [](const World& w, common::Pcg32& rng) {
        const FieldChange change = one_of(rng, field_changes());
        return record_mutant("record-fields", change.what, w, rng, change.change);
      },
      [](const World& w, common::Pcg32& rng) {
        const std::string field = one_of(rng, kFields);
        return record_mutant("record-fields", field + " missing", w, rng,
                             [field](Json& r) { r.erase(field); });
      },
      [](const World& w, common::Pcg32& rng) {
        const std::string field =
            one_of(rng, std::vector<std::string>{"title", "url", "thumbnail", "created_at"});
        return record_mutant("record-fields", "an extra field " + field, w, rng,
                             [field](Json& r) { r[field] = "x"; });
      },
  };
}

// --- cross-field consistency -------------------------------------------------------------------------

void swap_folders(Json& r) {
  if (!r["file"].is_string() || !r["image"].is_string()) return;
  std::string file = r["file"].get<std::string>();
  constexpr std::string_view kRoot = "filer_public/";
  if (!file.starts_with(kRoot) || file.size() < kRoot.size() + 5) return;
  const std::string folders = file.substr(kRoot.size(), 5);
  const std::string wrong = folders == "00/00" ? "ff/ff" : "00/00";
  // The uuid's first four hex digits no longer name the folders, in file and image alike.
  file.replace(kRoot.size(), 5, wrong);
  std::string image = r["image"].get<std::string>();
  if (const std::size_t at = image.find(std::string(kRoot) + folders); at != std::string::npos)
    image.replace(at + kRoot.size(), 5, wrong);
  r["file"] = file;
  r["image"] = image;
}

std::vector<Maker> cross_field() {
  return {
      [](const World& w, common::Pcg32& rng) {
        return record_mutant("cross-field", "image names another file", w, rng, [](Json& r) {
          if (!r["image"].is_string()) return;
          std::string image = r["image"].get<std::string>();
          image.insert(image.rfind('/') + 1, "other-");
          r["image"] = image;
        });
      },
      [](const World& w, common::Pcg32& rng) {
        return record_mutant("cross-field", "mime_type not the extension's", w, rng, [](Json& r) {
          r["mime_type"] = r["mime_type"] == "image/png" ? "image/gif" : "image/png";
        });
      },
      [](const World& w, common::Pcg32& rng) {
        return record_mutant("cross-field", "file's folders not the uuid's digits", w, rng, swap_folders);
      },
  };
}

// --- count drifting on some pages --------------------------------------------------------------------

std::vector<Maker> count_drift() {
  return {[](const World& w, common::Pcg32& rng) {
    const std::int64_t d = rng.chance(50) ? rng.between(2, 1000) : -rng.between(2, 5);
    std::vector<Position> where = {detail::first_page(), detail::second_page(), detail::last_page(w),
                                   detail::nth_request(static_cast<std::uint64_t>(rng.between(3, 9)))};
    if (auto deep = detail::deep_page(w, rng)) where.push_back(*deep);
    return make("count-drift", "count " + signed_text(d), one_of(rng, where),
                on_page([d](const Call&, Json& p) {
                  if (!p["count"].is_number_unsigned()) return;
                  const auto now = static_cast<std::int64_t>(p["count"].get<std::uint64_t>());
                  p["count"] = std::max<std::int64_t>(0, now + d);
                }));
  }};
}

// --- limits capped or ignored above a threshold ------------------------------------------------------

std::vector<Maker> limits() {
  // A threshold the quick plan's long page (limit=1500) goes over with records to spare.
  const auto threshold = [](const World& w, common::Pcg32& rng) {
    return static_cast<std::uint64_t>(
        rng.between(13, static_cast<std::int64_t>(std::min<std::uint64_t>(w.count, 1500)) - 1));
  };
  return {
      [threshold](const World& w, common::Pcg32& rng) {
        const std::uint64_t t = threshold(w, rng);
        return make("limits", "limit capped at " + std::to_string(t) + " (links as asked)",
                    detail::every_page(), on_page([t](const Call& c, Json& p) {
                      if (number_param(c.params, "limit").value_or(0) <= t || results_size(p) <= t) return;
                      p["results"].erase(p["results"].begin() + static_cast<std::ptrdiff_t>(t),
                                         p["results"].end());
                    }));
      },
      [threshold](const World& w, common::Pcg32& rng) {
        const std::uint64_t t = threshold(w, rng);
        return make("limits", "limit ignored above " + std::to_string(t), detail::every_page(),
                    [t](const Call& c, HttpResponse& r, Wire&) {
                      if (number_param(c.params, "limit").value_or(0) <= t) return;
                      common::QueryParams q = c.params;
                      remove_param(q, "limit");
                      r = c.answer_with(q);
                    });
      },
  };
}

// --- server errors on some inputs ---------------------------------------------------------------

HttpResponse error_answer(int status) {
  HttpResponse r;
  r.status = status;
  if (status == 500) {
    r.content_type = "application/json";
    r.headers = {{"Vary", "Accept"}, {"Allow", "GET, POST, HEAD, OPTIONS"}};
    r.body = R"({"detail":"A server error occurred."})";
  } else {
    r.content_type = "text/html";
    r.body = "<html><body><h1>" + std::to_string(status) + "</h1></body></html>\n";
  }
  return r;
}

std::vector<Maker> server_errors() {
  return {[](const World& w, common::Pcg32& rng) {
    const int status = one_of(rng, std::vector<int>{500, 502, 504});
    std::vector<Position> where = {detail::limit_probes(), detail::format_json_pages(), detail::long_page(),
                                   detail::nth_request(static_cast<std::uint64_t>(rng.between(3, 9)))};
    if (auto deep = detail::deep_page(w, rng)) where.push_back(*deep);
    return make("server-errors", std::to_string(status), one_of(rng, where),
                [status](const Call&, HttpResponse& r, Wire&) { r = error_answer(status); });
  }};
}

// --- HEAD and OPTIONS ---------------------------------------------------------------------------------

std::vector<Maker> head_and_options() {
  return {
      [](const World&, common::Pcg32& rng) {
        const bool close = rng.chance(50);
        return make("head-options",
                    close ? "the body after HEAD, then a close" : "the body after HEAD, kept alive",
                    detail::head_requests(), [close](const Call&, HttpResponse&, Wire& wire) {
                      wire.body_after_head = true;
                      wire.close_after = close;
                    });
      },
      [](const World&, common::Pcg32& rng) {
        const int which = static_cast<int>(rng.below(3));
        const std::vector<std::string> what = {"a Content-Length one more than GET's", "a 405",
                                               "no Vary header"};
        return make("head-options", "HEAD answered with " + what[static_cast<std::size_t>(which)],
                    detail::head_requests(), [which](const Call&, HttpResponse& r, Wire&) {
                      if (which == 0) r.body += " ";
                      if (which == 1) r = error_answer(500), r.status = 405;
                      if (which == 2) set_header(r, "Vary", std::nullopt);
                    });
      },
      [](const World&, common::Pcg32& rng) {
        const int status = one_of(rng, std::vector<int>{404, 405, 500});
        return make("head-options", "OPTIONS answered " + std::to_string(status), detail::options_requests(),
                    [status](const Call&, HttpResponse& r, Wire&) {
                      r = error_answer(500);
                      r.status = status;
                    });
      },
  };
}

// --- headers wrong on some answers only --------------------------------------------------------------

std::vector<Maker> headers() {
  return {
      [](const World& w, common::Pcg32& rng) {
        const std::string type =
            one_of(rng, std::vector<std::string>{"text/html; charset=utf-8", "application/xml", "text/plain",
                                                 "", "application/problem+json"});
        return make("headers", "Content-Type '" + type + "'", detail::any_page(w, rng),
                    [type](const Call&, HttpResponse& r, Wire&) { r.content_type = type; });
      },
      [](const World& w, common::Pcg32& rng) {
        const std::string allow =
            one_of(rng, std::vector<std::string>{"GET, HEAD, OPTIONS", "GET, POST, OPTIONS",
                                                 "GET, POST, PUT, HEAD, OPTIONS", ""});
        return make("headers", "Allow '" + allow + "'", detail::any_page(w, rng),
                    [allow](const Call&, HttpResponse& r, Wire&) {
                      set_header(r, "Allow", allow.empty() ? std::nullopt : std::optional(allow));
                    });
      },
      [](const World& w, common::Pcg32& rng) {
        const std::string vary = one_of(rng, std::vector<std::string>{"Cookie", "Accept-Encoding", ""});
        return make("headers", "Vary '" + vary + "'", detail::any_page(w, rng),
                    [vary](const Call&, HttpResponse& r, Wire&) {
                      set_header(r, "Vary", vary.empty() ? std::nullopt : std::optional(vary));
                    });
      },
  };
}

// --- encodings: BOM, compression nobody asked for ----------------------------------------------------

std::vector<Maker> encodings() {
  return {
      [](const World& w, common::Pcg32& rng) {
        return make("encodings", "a UTF-8 byte-order mark before the JSON", detail::any_page(w, rng),
                    [](const Call&, HttpResponse& r, Wire&) { r.body = "\xEF\xBB\xBF" + r.body; });
      },
      [](const World& w, common::Pcg32& rng) {
        const bool say_so = rng.chance(50);
        return make("encodings", say_so ? "gzip unasked, with Content-Encoding" : "gzip unasked, not said",
                    detail::any_page(w, rng), [say_so](const Call&, HttpResponse& r, Wire&) {
                      r.body = mock::gzip_compress(r.body);
                      if (say_so) r.headers.emplace_back("Content-Encoding", "gzip");
                    });
      },
      [](const World& w, common::Pcg32& rng) {
        return make(
            "encodings", "Content-Encoding: br on a plain body", detail::any_page(w, rng),
            [](const Call&, HttpResponse& r, Wire&) { r.headers.emplace_back("Content-Encoding", "br"); });
      },
  };
}

// --- transport: framing, lengths, chunks, closing ----------------------------------------------------

std::vector<Maker> transport() {
  return {
      [](const World& w, common::Pcg32& rng) {
        const auto d = static_cast<std::int64_t>(rng.between(1, 64));
        return make("transport", "Content-Length " + std::to_string(d) + " too long, then a close",
                    detail::any_page(w, rng), [d](const Call&, HttpResponse&, Wire& wire) {
                      wire.length_delta = d;
                      wire.close_after = true;
                    });
      },
      [](const World& w, common::Pcg32& rng) {
        const auto d = static_cast<std::int64_t>(rng.between(1, 64));
        return make("transport", "Content-Length " + std::to_string(d) + " too short",
                    detail::any_page(w, rng),
                    [d](const Call&, HttpResponse&, Wire& wire) { wire.length_delta = -d; });
      },
      [](const World& w, common::Pcg32& rng) {
        const std::string size = one_of(rng, std::vector<std::string>{"zz", "-5", "0x10", "1 0"});
        return make("transport", "chunked, a chunk size '" + size + "'", detail::any_page(w, rng),
                    [size](const Call&, HttpResponse&, Wire& wire) {
                      wire.framing = Wire::Framing::Chunked;
                      wire.first_chunk_size = size;
                      wire.close_after = true;
                    });
      },
      [](const World& w, common::Pcg32& rng) {
        return make("transport", "chunked without its last chunk, then a close", detail::any_page(w, rng),
                    [](const Call&, HttpResponse&, Wire& wire) {
                      wire.framing = Wire::Framing::Chunked;
                      wire.drop_last_chunk = true;
                      wire.close_after = true;
                    });
      },
      [](const World& w, common::Pcg32& rng) {
        return make("transport", "a close in the middle of the body", detail::any_page(w, rng),
                    [](const Call&, HttpResponse& r, Wire& wire) {
                      wire.cut_body_at = r.body.size() / 2;
                      wire.close_after = true;
                    });
      },
  };
}

// --- the JSON text itself ----------------------------------------------------------------------------

// Inserts text just inside the first string value of the body (after `"name":"`, or the first `:"`).
void into_first_string(std::string& body, std::string_view text) {
  std::size_t at = body.find("\":\"");
  if (at == std::string::npos) return;
  body.insert(at + 3, text);
}

struct TextChange {
  std::string what;
  std::function<void(std::string&)> change;
};

std::vector<TextChange> text_changes() {
  return {
      {"trailing garbage after the object", [](std::string& b) { b += "x"; }},
      {"a second object after the first", [](std::string& b) { b += "{}"; }},
      {"a trailing comma in the object",
       [](std::string& b) {
         if (!b.empty() && b.back() == '}') b.insert(b.size() - 1, ",");
       }},
      {"NaN for count",
       [](std::string& b) {
         const std::size_t at = b.find("\"count\":");
         if (at == std::string::npos) return;
         const std::size_t end = b.find(',', at);
         b.replace(at + 8, end - at - 8, "NaN");
       }},
      {"a raw control character in a string", [](std::string& b) { into_first_string(b, "\x01"); }},
      {"invalid UTF-8 in a string", [](std::string& b) { into_first_string(b, "\xC3\x28"); }},
      {"a lone surrogate escape in a string", [](std::string& b) { into_first_string(b, "\\ud800"); }},
      {"count given twice, the first 999999",
       [](std::string& b) {
         if (b.starts_with("{")) b.insert(1, "\"count\":999999,");
       }},
      {"single quotes around a key",
       [](std::string& b) {
         if (const std::size_t at = b.find("\"count\""); at != std::string::npos) b.replace(at, 7, "'count'");
       }},
  };
}

std::vector<Maker> json_text() {
  return {[](const World& w, common::Pcg32& rng) {
    const TextChange change = one_of(rng, text_changes());
    return make("json-text", change.what, detail::any_page(w, rng),
                [change](const Call&, HttpResponse& r, Wire&) {
                  if (r.status == 200 && !r.body.empty()) change.change(r.body);
                });
  }};
}

struct Class {
  std::string name;
  std::vector<Maker> makers;
};

const std::vector<Class>& classes() {
  static const std::vector<Class> all = {
      {"arithmetic", arithmetic()},
      {"links", links()},
      {"parameters", parameters()},
      {"records", records()},
      {"record-fields", record_fields()},
      {"cross-field", cross_field()},
      {"count-drift", count_drift()},
      {"limits", limits()},
      {"server-errors", server_errors()},
      {"head-options", head_and_options()},
      {"headers", headers()},
      {"encodings", encodings()},
      {"transport", transport()},
      {"json-text", json_text()},
      {"filters", detail::filter_class()},
      {"proxies", detail::proxy_class()},
      {"shared-caches", detail::shared_cache_class()},
      {"compression", detail::compression_class()},
      {"head-close", detail::head_close_class()},
      {"pictures", detail::picture_class()},
      {"detail", detail::detail_class()},
      {"validators", detail::validator_class()},
      {"redirects", detail::redirect_class()},
      {"filter-input", detail::filter_input_class()},
      {"settings", detail::settings_class()},
  };
  return all;
}

}  // namespace

const char* to_string(Visibility visibility) {
  return visibility == Visibility::Quick ? "quick" : "full";
}

const std::vector<std::string>& mutant_classes() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const Class& c : classes())
      out.push_back(c.name);
    return out;
  }();
  return names;
}

std::vector<Mutant> generate_mutants(const World& world, common::Pcg32& rng, std::size_t per_class) {
  std::vector<Mutant> out;
  for (const Class& c : classes()) {
    // Round the makers from a seeded start, so every kind of a class comes once per_class reaches
    // their number.
    const std::size_t start = rng.below(static_cast<std::uint32_t>(c.makers.size()));
    for (std::size_t i = 0; i < per_class; ++i)
      out.push_back(c.makers[(start + i) % c.makers.size()](world, rng));
  }
  return out;
}

}  // namespace entimg::mutants
