// The tolerated variants: they differ from DRF only where the contract allows, and pass.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <thread>

#include "entimg/mock/behaviour.hpp"
#include "variant_support.hpp"

namespace entimg::broken::detail {
namespace {

using mock::HttpResponse;

std::string fully_percent_encoded(std::string_view text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    out.append({'%', kHex[c >> 4], kHex[c & 15]});
  }
  return out;
}

// The link with its parameters in reverse order and every byte of names and values as %XX.
std::string reordered_encoded_link(const std::string& url) {
  const std::size_t q = url.find('?');
  if (q == std::string::npos) return url;
  common::QueryParams params = common::parse_query(std::string_view(url).substr(q + 1));
  std::reverse(params.begin(), params.end());
  std::string out = url.substr(0, q + 1);
  for (std::size_t i = 0; i < params.size(); ++i)
    out += (i ? "&" : "") + fully_percent_encoded(params[i].first) + "=" +
           fully_percent_encoded(params[i].second);
  return out;
}

// Records written while a walk is under way, told by the walk's pages asked so far (each offset once): none
// until its sixth page, then one more a page, up to `most`. A deployment's first request (the first page,
// asked once before anything else) starts afresh: no state is kept from a run against another one.
class WritesDuringWalk {
 public:
  explicit WritesDuringWalk(std::uint64_t most) : most_(most) {}
  std::uint64_t written(const Call& c) {
    const std::lock_guard lock(mutex_);
    if (c.request.method == "GET" && path_of(c.request) == "/edw/api/entities-images/" && c.params.empty() &&
        c.nth == 1)
      offsets_.clear();
    if (const auto offset = walk_offset(c)) offsets_.insert(*offset);
    return std::min<std::uint64_t>(offsets_.size() > 5 ? offsets_.size() - 5 : 0, most_);
  }

 private:
  std::mutex mutex_;
  std::set<std::uint64_t> offsets_;
  std::uint64_t most_;
};

// Records written while a run goes on: half of `most` as the quick plan's partial page (limit=5) is asked,
// the rest as its first limit probe (limit=abc) is: requests it asks alone, so that no pair of answers the
// plan compares (HEAD and GET, a page fetched twice, a side's answer and the plain one) straddles a write. A
// deployment's first page asked for the first time starts afresh.
class WritesDuringRun {
 public:
  explicit WritesDuringRun(std::uint64_t most) : most_(most) {}
  std::uint64_t written(const Call& c) {
    const std::lock_guard lock(mutex_);
    if (c.request.method == "GET" && path_of(c.request) == "/edw/api/entities-images/") {
      if (c.params.empty() && c.nth == 1) steps_.clear();
      const std::string* limit = common::last_value(c.params, "limit");
      if (limit != nullptr && (*limit == "5" || *limit == "abc")) steps_.insert(*limit);
    }
    return std::min<std::uint64_t>(steps_.size() * ((most_ + 1) / 2), most_);
  }

 private:
  std::mutex mutex_;
  std::set<std::string> steps_;
  std::uint64_t most_;
};

// A page of the collection itself, unfiltered.
bool is_collection_list(const Call& c) {
  return path_of(c.request) == "/edw/api/entities-images/" &&
         common::first_value(c.params, "entity") == nullptr;
}

// How many of the collection's first `held` records (hidden) the list a request asks holds ahead of its
// visible ones: all of them for the collection, those of the entity for ?entity=N or the nested route (a
// filtered list keeps the collection's order, so an entity's hidden records lead its list too); nullopt for
// any other request.
std::optional<std::uint64_t> hidden_ahead(const Call& c, std::uint64_t held) {
  const std::string_view path = path_of(c.request);
  std::string entity;
  constexpr std::string_view kNested = "/edw/api/entities/", kImages = "/images/";
  if (path == "/edw/api/entities-images/") {
    const std::string* query = common::last_value(c.params, "entity");
    if (query == nullptr) return held;
    entity = *query;
  } else if (path.starts_with(kNested) && path.ends_with(kImages) &&
             path.size() > kNested.size() + kImages.size()) {
    entity = std::string(path.substr(kNested.size(), path.size() - kNested.size() - kImages.size()));
  } else {
    return std::nullopt;
  }
  if (entity.empty() || entity.size() > 9 || entity.find_first_not_of("0123456789") != std::string::npos)
    return std::nullopt;
  if (held == 0) return 0;
  mock::HttpRequest head = c.request;
  head.method = "GET";
  head.target = "/edw/api/entities-images/?limit=" + std::to_string(held);
  const auto page = page_of(c.correct(head));
  std::uint64_t of_entity = 0;
  if (page && page->contains("results") && (*page)["results"].is_array())
    for (const Json& record : (*page)["results"])
      if (record.contains("entity") && record["entity"].is_number_integer() &&
          std::to_string(record["entity"].get<std::int64_t>()) == entity)
        ++of_entity;
  return of_entity;
}

// The window a request asks: its offset and the page length DRF gives it (12 for a limit that is not a
// positive whole number).
std::pair<std::uint64_t, std::uint64_t> window_asked(const Call& c);

// A variant of a collection written to while a walk goes on (10 records, one a walk page from its sixth):
// `hidden` says how many records of the list a request asks are not visible yet (of the `held` back), or
// nullopt for a request it leaves alone; `show` makes the page the visible list's window (its offset, length
// and the visible count); the count and next follow the visible list.
using Hidden = std::function<std::optional<std::uint64_t>(const Call&, std::uint64_t held)>;
using Show = std::function<void(const Call&, Json&, std::uint64_t offset, std::uint64_t length,
                                std::uint64_t visible)>;
std::function<HttpResponse(const Call&)> during_writes(Hidden hidden, Show show) {
  return [writes = std::make_shared<WritesDuringWalk>(10), hidden, show](const Call& c) {
    HttpResponse r = c.answer();
    const std::optional<std::uint64_t> not_yet = hidden(c, 10 - writes->written(c));
    if (!not_yet) return r;
    const auto [offset, length] = window_asked(c);
    edit_page(r, [&](Json& p) {
      if (!p["results"].is_array() || !p["count"].is_number_unsigned()) return;
      const std::uint64_t whole = p["count"].get<std::uint64_t>();
      const std::uint64_t visible = whole - std::min(whole, *not_yet);
      show(c, p, offset, length, visible);
      p["count"] = visible;
      if (offset + length >= visible) p["next"] = nullptr;
    });
    return r;
  };
}

// The window a request asks: its offset and the page length DRF gives it (12 for a limit that is not a
// positive whole number).
std::pair<std::uint64_t, std::uint64_t> window_asked(const Call& c) {
  const auto limit = number_param(c.params, "limit");
  return {number_param(c.params, "offset").value_or(0), limit && *limit > 0 ? *limit : 12};
}

// The body with `prefix` put before every absolute URL path of the API's and the media's on any origin
// ("http://h:1/edw/…" → "http://h:1/backend/edw/…"), in JSON and in the browsable page alike.
std::string with_prefix_in_urls(std::string_view body, std::string_view prefix) {
  std::string out;
  std::size_t at = 0;
  while (true) {
    const std::size_t scheme = body.find("://", at);
    if (scheme == std::string_view::npos) break;
    const std::size_t path = body.find_first_of("/\"'<> ", scheme + 3);
    if (path == std::string_view::npos) break;
    out.append(body.substr(at, path - at));
    const std::string_view rest = body.substr(path);
    if (rest.starts_with("/edw/") || rest.starts_with("/media/")) out.append(prefix);
    at = path;
  }
  out.append(body.substr(at));
  return out;
}

// The collection's last records as a run writing to it shows them: `hidden(written)` says how many of the
// last 10 are not there now (not appended yet, or deleted), and the list pages' count and next say so.
std::function<HttpResponse(const Call&)> written_during_run(
    std::function<std::uint64_t(std::uint64_t written)> hidden) {
  return [writes = std::make_shared<WritesDuringRun>(10), hidden](const Call& c) {
    HttpResponse r = c.answer();
    const std::uint64_t not_there = hidden(writes->written(c));
    if (!is_collection_list(c)) return r;  // HEAD too: its length is the edited GET's
    const auto [offset, length] = window_asked(c);
    edit_page(r, [&](Json& p) {
      if (!p["results"].is_array() || !p["count"].is_number_unsigned()) return;
      const std::uint64_t whole = p["count"].get<std::uint64_t>();
      const std::uint64_t visible = whole - std::min(whole, not_there);
      const std::uint64_t keep = visible > offset ? visible - offset : 0;
      while (p["results"].size() > keep)
        p["results"].erase(p["results"].size() - 1);
      p["count"] = visible;
      if (offset + length >= visible) p["next"] = nullptr;
    });
    return r;
  };
}

// A count cached (for ten minutes, say) while 10 records are uploaded after the run's fifth request: the
// pages list the new records, but count and next still stop where the old count did.
HttpResponse count_cached(const Call& c, WritesDuringRun& writes) {
  HttpResponse r = c.answer();
  const bool appended = writes.written(c) > 0;
  if (!is_collection_list(c)) return r;
  const auto [offset, length] = window_asked(c);
  edit_page(r, [&](Json& p) {
    if (!p["results"].is_array() || !p["count"].is_number_unsigned()) return;
    const std::uint64_t whole = p["count"].get<std::uint64_t>();
    const std::uint64_t cached = whole - std::min<std::uint64_t>(whole, 10);
    const std::uint64_t keep = appended ? whole : cached;
    while (p["results"].size() > (keep > offset ? keep - offset : 0))
      p["results"].erase(p["results"].size() - 1);
    p["count"] = cached;
    if (offset + length >= cached) p["next"] = nullptr;
  });
  return r;
}

}  // namespace

std::vector<Variant> live_variants() {
  std::vector<Variant> v;
  v.push_back(
      {"count-cached-while-appending",
       Kind::Broken,
       "walk_count_matches",
       {"page_length", "parameter_probe", "walk_count_matches"},
       "10 records are uploaded while the quick plan goes on (as it asks its partial page and its first "
       "limit probe), but the count is cached: pages list them, count and next stop where the old count "
       "did (the walk sees \"exactly\" the count)",
       "the pages past the cached count hold records their count leaves no room for: page_length on "
       "each, parameter_probe on the probe near the end",
       [writes = std::make_shared<WritesDuringRun>(10)](const Call& c) { return count_cached(c, *writes); }});
  v.push_back({"records-appended-during-the-run",
               Kind::Tolerated,
               "",
               {},
               "the collection's last 10 records are appended while the quick plan goes on (5 as it asks its "
               "partial page, 5 as it asks its first limit probe): pages report the count of their moment "
               "(count_stable notes the growth)",
               "",
               written_during_run([](std::uint64_t written) { return 10 - written; })});
  v.push_back({"records-deleted-during-the-run",
               Kind::Tolerated,
               "",
               {},
               "the collection's last 10 records are deleted while the quick plan goes on (5 as it asks its "
               "partial page, 5 as it asks its first limit probe): pages report the count of their moment "
               "(count_stable notes the fall)",
               "",
               written_during_run([](std::uint64_t written) { return written; })});
  return v;
}

std::vector<Variant> tolerated_variants() {
  std::vector<Variant> v;
  v.push_back({"json-charset-utf8",
               Kind::Tolerated,
               "",
               {},
               "JSON answers say Content-Type: application/json; charset=utf-8",
               "",
               [](const Call& c) {
                 HttpResponse r = c.answer();
                 if (r.content_type == "application/json") r.content_type = "application/json; charset=utf-8";
                 return r;
               }});
  v.push_back({"links-reordered-and-encoded",
               Kind::Tolerated,
               "",
               {},
               "next and previous list their parameters in reverse order, every byte of names and values "
               "percent-encoded (%6C%69%6D%69%74=%31%32)",
               "",
               every_page([](Json& p) {
                 edit_links(
                     p, [](std::string_view, const std::string& url) { return reordered_encoded_link(url); });
               })});
  v.push_back({"image-path-percent-encoded",
               Kind::Tolerated,
               "",
               {},
               "image URLs percent-encode unreserved characters of the file name (_ as %5F, . as %2E)",
               "",
               every_page([](Json& p) {
                 for_each_record(p, [](Json& r) {
                   if (!r["image"].is_string()) return;
                   const std::string url = r["image"].get<std::string>();
                   const std::size_t name = url.rfind('/');
                   std::string out = url.substr(0, name + 1);
                   for (const char ch : url.substr(name + 1))
                     out += ch == '_' ? "%5F" : ch == '.' ? "%2E" : std::string(1, ch);
                   r["image"] = out;
                 });
               })});
  v.push_back({"pretty-printed-json",
               Kind::Tolerated,
               "",
               {},
               "JSON bodies are indented by 2 spaces",
               "",
               [](const Call& c) {
                 HttpResponse r = c.answer();
                 if (r.content_type.starts_with("application/json")) {
                   const Json json = Json::parse(r.body, nullptr, false);
                   if (!json.is_discarded()) set_body(r, json, 2);
                 }
                 return r;
               }});
  v.push_back(
      {"ascii-escaped-json",
       Kind::Tolerated,
       "",
       {},
       "JSON escapes every non-ASCII character as \\uXXXX (Python's ensure_ascii) and ends with a newline",
       "",
       [](const Call& c) {
         HttpResponse r = c.answer();
         if (!r.content_type.starts_with("application/json")) return r;
         const Json json = Json::parse(r.body, nullptr, false);
         if (!json.is_discarded()) r.body = json.dump(-1, ' ', true) + "\n";
         return r;
       }});
  v.push_back({"keys-in-other-order",
               Kind::Tolerated,
               "",
               {},
               "the envelope's and every record's keys come in reverse order (JSON objects are unordered)",
               "",
               every_page([](Json& p) {
                 const auto reversed = [](const Json& object) {
                   Json out = Json::object();
                   std::vector<std::pair<std::string, Json>> items;
                   for (const auto& [key, value] : object.items())
                     items.emplace_back(key, value);
                   for (auto it = items.rbegin(); it != items.rend(); ++it)
                     out[it->first] = it->second;
                   return out;
                 };
                 for (Json& record : p["results"])
                   if (record.is_object()) record = reversed(record);
                 p = reversed(p);
               })});
  v.push_back({"content-type-spelled-differently",
               Kind::Tolerated,
               "",
               {},
               "JSON answers say Content-Type: Application/JSON; Charset=\"UTF-8\"",
               "",
               [](const Call& c) {
                 HttpResponse r = c.answer();
                 if (r.content_type == "application/json")
                   r.content_type = "Application/JSON; Charset=\"UTF-8\"";
                 return r;
               }});
  v.push_back(
      {"extra-headers",
       Kind::Tolerated,
       "",
       {},
       "answers carry what a production stack adds: Vary: Accept, Accept-Language, Cookie, "
       "Content-Language, X-Frame-Options, X-Content-Type-Options, Referrer-Policy, Server, and a second "
       "Vary line",
       "",
       [](const Call& c) {
         HttpResponse r = c.answer();
         if (header_of(r, "Vary")) set_header(r, "Vary", "Accept, Accept-Language, Cookie");
         r.headers.emplace_back("Vary", "Origin");
         r.headers.emplace_back("Content-Language", "ru");
         r.headers.emplace_back("X-Frame-Options", "DENY");
         r.headers.emplace_back("X-Content-Type-Options", "nosniff");
         r.headers.emplace_back("Referrer-Policy", "same-origin");
         r.headers.emplace_back("Server", "nginx");
         return r;
       }});
  v.push_back({"per-response-headers",
               Kind::Tolerated,
               "",
               {},
               "every answer carries headers that change from one answer to the next (X-Request-Id, Date, "
               "Set-Cookie), as many front ends add",
               "",
               [](const Call& c) {
                 static std::atomic<std::uint64_t> counter{0};
                 HttpResponse r = c.answer();
                 const std::string n = std::to_string(++counter);
                 r.headers.emplace_back("X-Request-Id", "req-" + n);
                 r.headers.emplace_back("Date",
                                        "Sat, 22 Nov 2025 07:00:" + std::string(n.size() < 2 ? "0" : "") +
                                            n.substr(n.size() >= 2 ? n.size() - 2 : 0) + " GMT");
                 r.headers.emplace_back("Set-Cookie", "lb=" + n + "; Path=/");
                 return r;
               }});
  v.push_back({"previous-offset-zero",
               Kind::Tolerated,
               "",
               {},
               "previous carries offset=0 where DRF drops the offset (the spec's reading of rule 2)",
               "",
               every_page([](Json& p) {
                 if (!p["previous"].is_string()) return;
                 p["previous"] = edit_link(p["previous"].get<std::string>(), [](common::QueryParams& q) {
                   if (!common::last_value(q, "offset")) set_param(q, "offset", "0");
                 });
               })});
  v.push_back({"allow-other-order",
               Kind::Tolerated,
               "",
               {},
               "Allow lists the four methods in another order",
               "",
               [](const Call& c) {
                 HttpResponse r = c.answer();
                 if (header_of(r, "Allow")) set_header(r, "Allow", "OPTIONS, HEAD, POST, GET");
                 return r;
               }});
  v.push_back({"records-appended-while-walking",
               Kind::Tolerated,
               "",
               {},
               "the collection lists all records but the last 10 until a walk is under way, then one more "
               "is appended (an upload) for each page walked, up to all of them: pages report the count of "
               "their moment",
               "the quick plan asks at most three pages of its own by bare offset, so the writes begin with "
               "the walk's sixth page",
               during_writes(
                   [](const Call& c, std::uint64_t held) {
                     return is_collection_list(c) ? std::optional(held) : std::nullopt;
                   },
                   // The last `hidden` records are not there yet: the page ends before them.
                   [](const Call&, Json& p, std::uint64_t offset, std::uint64_t, std::uint64_t visible) {
                     const std::uint64_t keep = visible > offset ? visible - offset : 0;
                     while (p["results"].size() > keep)
                       p["results"].erase(p["results"].size() - 1);
                   })});
  v.push_back({"records-put-first-while-walking",
               Kind::Tolerated,
               "",
               {},
               "the collection lists all records but the first 10 until a walk is under way, then one more "
               "is put back at its head (a record made visible again) for each page walked: every later page "
               "begins with the page before's last record, and pages report the count of their moment",
               "the quick plan asks at most three pages of its own by bare offset, so the writes begin with "
               "the walk's sixth page",
               during_writes(hidden_ahead, [](const Call& c, Json& p, std::uint64_t offset,
                                              std::uint64_t length, std::uint64_t visible) {
                 // The records behind the hidden head: the whole list's from offset + the hidden ones.
                 const std::uint64_t shift = p["count"].get<std::uint64_t>() - visible;
                 common::QueryParams query = c.params;
                 set_param(query, "offset", std::to_string(offset + shift));
                 set_param(query, "limit", std::to_string(length));
                 const auto moved = page_of(c.answer_with(query));
                 if (moved && moved->contains("results")) p["results"] = moved->at("results");
               })});
  v.push_back({"mounted-under-a-path-prefix",
               Kind::Tolerated,
               "",
               {},
               "the deployment is mounted under /backend (Django's FORCE_SCRIPT_NAME behind a front server): "
               "its base URL, links, pictures and redirects carry the prefix, and a path outside it is "
               "Django's 404 page",
               "",
               [](const Call& c) {
                 constexpr std::string_view kPrefix = "/backend";
                 mock::HttpRequest inner = c.request;
                 const std::string_view path = path_of(c.request);
                 inner.target = path.starts_with(std::string(kPrefix) + "/")
                                    ? c.request.target.substr(kPrefix.size())
                                    : "/edw/api/no-such-route/";
                 HttpResponse r = c.correct(inner);
                 r.body = with_prefix_in_urls(r.body, kPrefix);
                 if (const auto location = header_of(r, "Location"))
                   set_header(r, "Location",
                              location->starts_with("/") ? std::string(kPrefix) + *location
                                                         : with_prefix_in_urls(*location, kPrefix));
                 return r;
               },
               false,
               "/backend"});
  v.push_back({"drf-max-limit-100",
               Kind::Tolerated,
               "",
               {},
               "the paginator's max_limit is 100: a limit above it gets 100 records, and links carrying "
               "limit=100, as DRF's LimitOffsetPagination does",
               "",
               [](const Call& c) {
                 const auto limit = number_param(c.params, "limit");
                 if (!limit || *limit <= 100 || path_of(c.request).find("images/") == std::string_view::npos)
                   return c.answer();
                 common::QueryParams query = c.params;
                 set_param(query, "limit", "100");
                 return c.answer_with(query);
               }});
  v.push_back({"chunked-answers",
               Kind::Tolerated,
               "",
               {},
               "every body is sent with Transfer-Encoding: chunked, in 4 KiB chunks, no Content-Length",
               "",
               [](const Call& c) {
                 HttpResponse r = c.answer();
                 r.headers.emplace_back("Transfer-Encoding", "chunked");
                 return r;
               }});
  v.push_back({"throttled-now-and-then",
               Kind::Tolerated,
               "",
               {},
               "every seventh request is answered 429 with Retry-After: 0, as DRF's throttling answers; a "
               "retry is answered",
               "",
               [](const Call& c) {
                 // A request asked before (nth > 1: a retry, or a page asked again) is answered, so a retry
                 // is answered whatever other threads ask meanwhile.
                 static std::atomic<std::uint64_t> counter{0};
                 if (c.nth == 1 && ++counter % 7 == 0) {
                   HttpResponse r =
                       json_error(429, "Request was throttled. Expected available in 0 seconds.");
                   r.headers.emplace_back("Retry-After", "0");
                   return r;
                 }
                 return c.answer();
               }});
  v.push_back(
      {"slow-answers", Kind::Tolerated, "", {}, "every answer comes 150 ms late", "", [](const Call& c) {
         std::this_thread::sleep_for(std::chrono::milliseconds(150));
         return c.answer();
       }});
  v.push_back(
      {"etag-and-conditional-get",
       Kind::Tolerated,
       "",
       {},
       "answers carry an ETag and Last-Modified, and If-None-Match with that ETag gets 304 (the suite "
       "sends no conditional request)",
       "",
       [](const Call& c) {
         HttpResponse r = c.answer();
         const std::string tag = "\"" + std::to_string(std::hash<std::string>{}(r.body)) + "\"";
         if (c.request.header("If-None-Match") == tag) return HttpResponse{304, "", {{"ETag", tag}}, ""};
         r.headers.emplace_back("ETag", tag);
         r.headers.emplace_back("Last-Modified", "Sat, 22 Nov 2025 07:00:00 GMT");
         return r;
       }});
  v.push_back(
      {"gzip-when-asked",
       Kind::Tolerated,
       "",
       {},
       "JSON answers are gzipped for a client whose Accept-Encoding offers gzip (the suite offers none), "
       "with Vary: Accept-Encoding",
       "",
       [](const Call& c) {
         HttpResponse r = c.answer();
         mock::apply_gzip_middleware(c.request, r);
         return r;
       }});
  return v;
}

}  // namespace entimg::broken::detail
