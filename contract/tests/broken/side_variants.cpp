// Variants on the sides the quick plan asks from (docs/contract.md, "Sides"): a filter and the nested route,
// negotiation, compression, a proxy's headers, another Host, and a cache in front. The broken ones fail the
// side's rule alone; the tolerated ones differ from DRF as production stacks do, and pass.
#include <algorithm>
#include <array>

#include "entimg/common/ascii.hpp"
#include "entimg/mock/behaviour.hpp"
#include "variant_support.hpp"

namespace entimg::broken::detail {
namespace {

using mock::HttpRequest;
using mock::HttpResponse;

constexpr std::string_view kCollection = "/edw/api/entities-images/";
constexpr std::array<std::string_view, 3> kForwarding = {"X-Forwarded-Proto", "X-Forwarded-Host",
                                                         "Forwarded"};

bool is_nested(const HttpRequest& request) {
  const std::string_view path = path_of(request);
  constexpr std::string_view kStart = "/edw/api/entities/", kEnd = "/images/";
  if (!path.starts_with(kStart) || !path.ends_with(kEnd) || path.size() <= kStart.size() + kEnd.size())
    return false;
  return path.substr(kStart.size(), path.size() - kStart.size() - kEnd.size()).find('/') ==
         std::string_view::npos;
}

bool is_proxied(const HttpRequest& request) {
  return std::any_of(kForwarding.begin(), kForwarding.end(),
                     [&](std::string_view name) { return request.header(name).has_value(); });
}

// The browsable API is what the request asks for: format=api, or an Accept naming text/html.
bool wants_html(const Call& c) {
  const std::string* format = common::last_value(c.params, "format");
  return (format != nullptr && *format == "api") ||
         c.request.header("Accept").value_or("").find("text/html") != std::string::npos;
}

HttpRequest with_header(HttpRequest request, std::string_view name, std::optional<std::string> value) {
  std::erase_if(request.headers, [&](const auto& h) { return common::iequals_ascii(h.first, name); });
  if (value) request.headers.emplace_back(std::string(name), std::move(*value));
  return request;
}

// Django's filepath_to_uri: every byte but unreserved ones, '/' and ~!*()' percent-encoded.
std::string filepath_to_uri(std::string_view path) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (const char ch : path) {
    const auto c = static_cast<unsigned char>(ch);
    const bool safe = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                      std::string_view("-._~/!*()'").find(ch) != std::string_view::npos;
    if (safe)
      out.push_back(ch);
    else
      out.append({'%', kHex[c >> 4], kHex[c & 15]});
  }
  return out;
}

// The record's stored name prefixed with `prefix`, in file and, percent-encoded, in image.
void rename_stored_file(Json& record, std::string_view prefix) {
  if (!record["file"].is_string() || !record["image"].is_string()) return;
  std::string file = record["file"].get<std::string>();
  std::string image = record["image"].get<std::string>();
  const std::size_t file_slash = file.rfind('/'), image_slash = image.rfind('/');
  if (file_slash == std::string::npos || image_slash == std::string::npos) return;
  const std::string name = std::string(prefix) + file.substr(file_slash + 1);
  record["file"] = file.substr(0, file_slash + 1) + name;
  record["image"] = image.substr(0, image_slash + 1) + filepath_to_uri(name);
}

}  // namespace

// What a deployment that ignores the filter answers: the whole collection, its links built from the query as
// sent (entity kept, DRF builds them from QUERY_STRING) on the path asked.
HttpResponse unfiltered(const Call& c) {
  HttpRequest whole = c.request;
  const std::string path(path_of(c.request));
  if (is_nested(c.request)) whole.target = std::string(kCollection) + whole.target.substr(path.size());
  common::QueryParams query = query_of(whole);
  remove_param(query, "entity");
  whole = with_query(whole, query);
  HttpResponse r = c.correct(whole);
  const common::QueryParams sent = c.params;
  edit_page(r, [&](Json& p) {
    edit_links(p, [&](std::string_view, const std::string& url) {
      std::string out = url;
      if (const std::size_t at = out.find(kCollection); at != std::string::npos && path != kCollection)
        out.replace(at, kCollection.size(), path);
      return edit_link(out, [&](common::QueryParams& q) {
        for (const auto& [name, value] : sent)
          if (name == "entity") q.emplace_back(name, value);
        std::stable_sort(q.begin(), q.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
      });
    });
  });
  return r;
}

// The answer with django-cors-headers' headers for a request that sends Origin: the origin echoed,
// credentials allowed or not, Vary: Origin or not.
HttpResponse with_cors(const Call& c, bool credentials, bool vary) {
  HttpResponse r = c.answer();
  const auto origin = c.request.header("Origin");
  if (!origin) return r;
  r.headers.emplace_back("Access-Control-Allow-Origin", *origin);
  if (credentials) r.headers.emplace_back("Access-Control-Allow-Credentials", "true");
  if (vary) r.headers.emplace_back("Vary", "Origin");
  return r;
}

// The first 12 records of the collection (ids up to 36) made records of one entity, in lists and on the
// detail route alike.
HttpResponse with_first_records_of_one_entity(HttpResponse r) {
  return with_records_edited(std::move(r), "entity", [](Json& record) {
    if (record.is_object() && record["id"].is_number_integer() && record["id"].get<std::int64_t>() <= 36)
      record["entity"] = 4242;
  });
}

bool asks_entity(const Call& c) {
  return is_nested(c.request) || common::first_value(c.params, "entity") != nullptr;
}

bool entity_not_a_number(const Call& c) {
  const std::string* entity = common::last_value(c.params, "entity");
  return entity != nullptr && !entity->empty() &&
         entity->find_first_not_of("-0123456789") != std::string::npos;
}

std::vector<Variant> side_variants() {
  std::vector<Variant> v;
  v.push_back({"entity-not-a-number-500",
               Kind::Broken,
               "filter_input",
               {"filter_input"},
               "?entity=abc answers Django's 500 page (the value reaches the database unchecked)",
               "",
               [](const Call& c) {
                 if (!entity_not_a_number(c)) return c.answer();
                 HttpResponse r{500, "text/html", {}, "<!doctype html>\n<title>Server Error (500)</title>\n"};
                 return r;
               }});
  v.push_back({"entity-not-a-number-lists-everything",
               Kind::Broken,
               "filter_input",
               {"filter_input"},
               "?entity=abc lists the whole collection, while numbers filter (a filter that half-works)",
               "",
               [](const Call& c) { return entity_not_a_number(c) ? unfiltered(c) : c.answer(); }});
  v.push_back(
      {"nested-route-ignores-entity",
       Kind::Broken,
       "entity_filter",
       {"entity_filter", "filter_input"},
       "/edw/api/entities/<pk>/images/ lists the whole collection (its links on the nested path)",
       "the nested route with a pk that is not a number lists every record too, where DRF answers 400",
       [](const Call& c) {
         if (c.request.method != "GET" || !is_nested(c.request)) return c.answer();
         HttpRequest whole = c.request;
         const std::string nested(path_of(c.request));
         whole.target = std::string(kCollection) + whole.target.substr(nested.size());
         HttpResponse r = c.correct(whole);
         edit_page(r, [&](Json& p) {
           edit_links(p, [&](std::string_view, const std::string& url) {
             std::string out = url;
             if (const std::size_t at = out.find(kCollection); at != std::string::npos)
               out.replace(at, kCollection.size(), nested);
             return out;
           });
         });
         return r;
       }});
  v.push_back({"browsable-api-answers-json",
               Kind::Broken,
               "accept_negotiated",
               {"accept_negotiated"},
               "format=api and Accept: text/html get the JSON page, as if the browsable renderer were gone",
               "",
               [](const Call& c) {
                 if (c.request.method != "GET" || !wants_html(c)) return c.answer();
                 common::QueryParams params = c.params;
                 remove_param(params, "format");
                 return c.correct(with_query(with_header(c.request, "Accept", "application/json"), params));
               }});
  v.push_back({"gzip-copy-differs",
               Kind::Broken,
               "compressed_as_asked",
               {"compressed_as_asked"},
               "gzip for clients that ask for it (Django's GZipMiddleware), of an older rendering: the first "
               "record's alt differs from the plain answer's",
               "",
               [](const Call& c) {
                 HttpResponse r = c.answer();
                 if (mock::accepts_gzip(c.request.header("Accept-Encoding").value_or("")))
                   edit_page(r, [](Json& p) {
                     if (!p["results"].empty() && p["results"][0].is_object())
                       p["results"][0]["alt"] = "an older rendering";
                   });
                 mock::apply_gzip_middleware(c.request, r);
                 return r;
               }});
  v.push_back({"images-ignore-forwarded-headers",
               Kind::Broken,
               "forwarded_origin",
               {"forwarded_origin"},
               "links follow X-Forwarded-Proto/-Host, image URLs stay on the Host the proxy passed (http)",
               "",
               [](const Call& c) {
                 HttpResponse r = c.answer();
                 if (!is_proxied(c.request)) return r;
                 const std::string origin =
                     "http://" + c.request.header("Host").value_or(c.request.server_authority);
                 edit_page(r, [&](Json& p) {
                   for_each_record(p, [&](Json& record) {
                     if (record["image"].is_string())
                       record["image"] = with_origin(record["image"].get<std::string>(), origin);
                   });
                 });
                 return r;
               }});
  v.push_back(
      {"cors-credentials-for-any-origin",
       Kind::Broken,
       "cors_origin",
       {"cors_origin"},
       "any Origin is echoed in Access-Control-Allow-Origin with Access-Control-Allow-Credentials: true "
       "(django-cors-headers' CORS_ALLOW_ALL_ORIGINS with CORS_ALLOW_CREDENTIALS)",
       "",
       [](const Call& c) { return with_cors(c, true, true); }});
  v.push_back({"cors-origin-echoed-without-vary",
               Kind::Broken,
               "cors_origin",
               {"cors_origin"},
               "any Origin is echoed in Access-Control-Allow-Origin, without credentials and without Vary: "
               "Origin (a shared cache hands one origin's answer to the next)",
               "",
               [](const Call& c) { return with_cors(c, false, false); }});
  v.push_back({"cache-replays-canonical-host",
               Kind::Broken,
               "host_origin",
               {"host_origin"},
               "a cache keyed without the Host keeps answers to the server's own host name and hands them to "
               "requests naming another",
               "",
               [](const Call& c) {
                 return c.cache.answer(c.request, c.correct, {.host = false, .canonical_only = true});
               }});
  return v;
}

std::vector<Variant> side_tolerated_variants() {
  std::vector<Variant> v;
  v.push_back({"cors-any-origin-echoed-with-vary",
               Kind::Tolerated,
               "",
               {},
               "any Origin is echoed in Access-Control-Allow-Origin with Vary: Origin, without credentials "
               "(a public API read from any site): a note",
               "",
               [](const Call& c) { return with_cors(c, false, true); }});
  v.push_back(
      {"filter-ignored-first-records-of-one-entity",
       Kind::Tolerated,
       "",
       {},
       "?entity= and the nested route list the whole collection (as filter-ignored-altogether), and "
       "the first page's 12 records are all of one entity, so a filtered page of two records can hold "
       "that entity's records alone",
       "",
       [](const Call& c) {
         return with_first_records_of_one_entity(asks_entity(c) ? unfiltered(c) : c.answer());
       }});
  v.push_back(
      {"filter-ignored-altogether",
       Kind::Tolerated,
       "",
       {},
       "?entity= and the nested route list the whole collection, whatever the entity (edw's filter_class "
       "under django-filter 22.1 and later): a warning, and a failure only with --require-filter",
       "",
       [](const Call& c) { return asks_entity(c) ? unfiltered(c) : c.answer(); }});
  v.push_back(
      {"proxy-overwrites-forwarded-headers",
       Kind::Tolerated,
       "",
       {},
       "a proxy in front sets X-Forwarded-Proto: http and X-Forwarded-Host to the Host it got, whatever "
       "the client sent, and drops Forwarded (nginx: proxy_set_header)",
       "",
       [](const Call& c) {
         HttpRequest request = c.request;
         for (const std::string_view name : kForwarding)
           request = with_header(std::move(request), name, std::nullopt);
         request = with_header(std::move(request), "X-Forwarded-Proto", "http");
         request = with_header(std::move(request), "X-Forwarded-Host",
                               c.request.header("Host").value_or(c.request.server_authority));
         return c.correct(request);
       }});
  v.push_back(
      {"shared-cache-honouring-vary",
       Kind::Tolerated,
       "",
       {},
       "a shared cache in front keeps GET answers by target, Host and forwarding headers, and serves one "
       "only to requests whose Vary headers match",
       "",
       [](const Call& c) { return c.cache.answer(c.request, c.correct, {}); }});
  v.push_back({"lower-case-header-names",
               Kind::Tolerated,
               "",
               {},
               "header names in lower case, as an HTTP/2 front passes them on (content-type, vary, allow, …)",
               "",
               [](const Call& c) {
                 HttpResponse r = c.answer();
                 for (auto& [name, value] : r.headers)
                   name = common::ascii_lowered(name);
                 if (!r.content_type.empty())
                   r.headers.emplace_back("content-type", std::move(r.content_type));
                 r.content_type.clear();
                 return r;
               },
               true});
  v.push_back({"trailing-newline-after-json",
               Kind::Tolerated,
               "",
               {},
               "JSON bodies end with a newline",
               "",
               [](const Call& c) {
                 HttpResponse r = c.answer();
                 if (r.content_type.starts_with("application/json")) r.body += "\n";
                 return r;
               }});
  v.push_back({"key-set-on-some-records",
               Kind::Tolerated,
               "",
               {},
               "every third record has an integer key (fluent's key field in use) instead of null",
               "",
               every_page([](Json& p) {
                 for_each_record(p, [](Json& record) {
                   if (record["id"].is_number_integer() && record["id"].get<std::int64_t>() % 3 == 0)
                     record["key"] = record["id"].get<std::int64_t>() % 1000 + 1;
                 });
               })});
  v.push_back(
      {"stored-names-with-spaces-and-cyrillic",
       Kind::Tolerated,
       "",
       {},
       "some stored names hold spaces or Cyrillic (files imported outside filer's upload path), their "
       "image URLs percent-encoded as Django's filepath_to_uri does, and the files served under those names",
       "",
       [](const Call& c) {
         if (path_of(c.request).starts_with("/media/")) {
           // A file stored under its own name, or under a renamed one: the picture of the original name.
           HttpResponse own = c.answer();
           if (own.status != 404) return own;
           std::string path = common::percent_decode(path_of(c.request), false);
           const std::size_t slash = path.rfind('/') + 1;
           for (const std::string_view prefix : {std::string_view("my photo "), std::string_view("Фото ")})
             if (std::string_view(path).substr(slash).starts_with(prefix)) path.erase(slash, prefix.size());
           HttpRequest original = c.request;
           original.target = filepath_to_uri(path);
           return c.correct(original);
         }
         static const auto renamed = every_page([](Json& p) {
           for_each_record(p, [](Json& record) {
             if (!record["id"].is_number_integer()) return;
             const std::int64_t id = record["id"].get<std::int64_t>();
             if (id % 4 == 1) rename_stored_file(record, "my photo ");
             if (id % 4 == 3) rename_stored_file(record, "Фото ");
           });
         });
         return renamed(c);
       }});
  return v;
}

}  // namespace entimg::broken::detail
