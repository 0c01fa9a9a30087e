// The tolerated variants: they differ from DRF only where the contract allows, and pass.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <functional>
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

}  // namespace

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
               [](const Call& c) {
                 // The walk's pages asked so far, told by their offsets (each once); the collection as it
                 // is at that moment: the first `visible` records.
                 static std::mutex mutex;
                 static std::set<std::uint64_t> offsets;
                 std::uint64_t grown = 0;  // records appended so far, of the 10 held back
                 {
                   const std::lock_guard lock(mutex);
                   // A deployment's first request (the first page, asked once before anything else) starts
                   // its collection afresh: the variant keeps no state from a run against another one.
                   if (c.request.method == "GET" && path_of(c.request) == "/edw/api/entities-images/" &&
                       c.params.empty() && c.nth == 1)
                     offsets.clear();
                   if (const auto offset = walk_offset(c)) offsets.insert(*offset);
                   grown = std::min<std::uint64_t>(offsets.size() > 5 ? offsets.size() - 5 : 0, 10);
                 }
                 HttpResponse r = c.answer();
                 if (path_of(c.request) != "/edw/api/entities-images/" ||
                     common::first_value(c.params, "entity") != nullptr)
                   return r;
                 const std::uint64_t offset = number_param(c.params, "offset").value_or(0);
                 const auto limit = number_param(c.params, "limit");
                 const std::uint64_t length = limit && *limit > 0 ? *limit : 12;
                 edit_page(r, [&](Json& p) {
                   if (!p["results"].is_array() || !p["count"].is_number_unsigned()) return;
                   const std::uint64_t whole = p["count"].get<std::uint64_t>();
                   const std::uint64_t visible = whole - std::min<std::uint64_t>(whole, 10) + grown;
                   const std::uint64_t keep = visible > offset ? visible - offset : 0;
                   while (p["results"].size() > keep)
                     p["results"].erase(p["results"].size() - 1);
                   p["count"] = visible;
                   if (offset + length >= visible) p["next"] = nullptr;
                 });
                 return r;
               }});
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
                 static std::atomic<std::uint64_t> counter{0};
                 if (++counter % 7 == 0) {
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
