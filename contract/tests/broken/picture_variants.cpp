// The variants of what a client asks past the list. The pictures a deployment serves at its records' image
// URLs (MEDIA_URL): lost files, an app's page in their place, wrong types and bytes, redirects that lead
// nowhere, and the tolerated way a storage host serves them (a redirect, 206 to a Range). The detail route,
// the slashless path and revalidation, each broken where a client meets it.
#include <string>

#include "variant_support.hpp"

namespace entimg::broken::detail {
namespace {

using mock::HttpRequest;
using mock::HttpResponse;

bool is_picture(const Call& c) {
  return path_of(c.request).starts_with("/media/");
}

// The record id a placeholder picture's URL belongs to is not in the URL; the file name's length stands in
// for "some files": about one in five names is lost.
bool lost(const Call& c) {
  return path_of(c.request).size() % 5 == 0;
}

// The answer to the same request at another path.
HttpResponse answer_at(const Call& c, std::string target) {
  HttpRequest moved = c.request;
  moved.target = std::move(target);
  return c.correct(moved);
}

// A picture variant: the correct answer to everything but pictures; `picture` answers those.
std::function<HttpResponse(const Call&)> pictures(std::function<HttpResponse(const Call&)> picture) {
  return [picture = std::move(picture)](const Call& c) { return is_picture(c) ? picture(c) : c.answer(); };
}

constexpr std::string_view kAppIndex =
    "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>Gallery</title></head>"
    "<body><div id=\"root\"></div><script src=\"/assets/index.js\"></script></body></html>\n";

}  // namespace

std::vector<Variant> picture_variants() {
  std::vector<Variant> v;
  v.push_back({"some-pictures-missing",
               Kind::Broken,
               "image_loads",
               {"image_loads"},
               "about one picture in five answers Django's 404 page (files lost from the storage)",
               "",
               pictures([](const Call& c) {
                 if (!lost(c)) return c.answer();
                 return answer_at(c, "/media/no-such-file.png");
               })});
  v.push_back({"pictures-are-the-app-page",
               Kind::Broken,
               "image_loads",
               {"image_loads"},
               "every picture URL answers 200 with a single-page app's index.html, labelled with the "
               "picture's type (a catch-all route in front of the storage)",
               "",
               pictures([](const Call& c) {
                 HttpResponse r = c.answer();
                 r.body = std::string(kAppIndex);
                 return r;
               })});
  v.push_back({"pictures-typed-octet-stream",
               Kind::Broken,
               "image_loads",
               {"image_loads"},
               "pictures are served as application/octet-stream (a storage bucket without content types)",
               "",
               pictures([](const Call& c) {
                 HttpResponse r = c.answer();
                 r.content_type = "application/octet-stream";
                 return r;
               })});
  v.push_back({"pictures-bytes-of-another-type",
               Kind::Broken,
               "image_loads",
               {"image_loads"},
               "every picture's bytes are a GIF, whatever its Content-Type and the record's mime_type say",
               "",
               pictures([](const Call& c) {
                 HttpResponse r = c.answer();
                 r.body = std::string("GIF89a\1\0\1\0\0\0\0;", 13);
                 return r;
               })});
  v.push_back(
      {"pictures-redirect-in-a-loop",
       Kind::Broken,
       "image_loads",
       {"image_loads"},
       "every picture URL redirects (302) to /storage/…, which redirects back",
       "",
       [](const Call& c) {
         const std::string_view path = path_of(c.request);
         if (path.starts_with("/storage/"))
           return HttpResponse{302, "text/html", {{"Location", "/media/" + std::string(path.substr(9))}}, ""};
         if (!is_picture(c)) return c.answer();
         return HttpResponse{302, "text/html", {{"Location", "/storage/" + std::string(path.substr(7))}}, ""};
       }});
  v.push_back({"pictures-from-storage-by-redirect",
               Kind::Tolerated,
               "",
               {},
               "every picture URL redirects (302, absolute Location) to /storage/…, which serves the picture "
               "with 206 to the Range asked, as a storage host does",
               "",
               [](const Call& c) {
                 const std::string_view path = path_of(c.request);
                 if (is_picture(c))
                   return HttpResponse{302,
                                       "text/html",
                                       {{"Location", "http://" + c.request.header("Host").value_or("") +
                                                         "/storage/" + std::string(path.substr(7))}},
                                       ""};
                 if (!path.starts_with("/storage/")) return c.answer();
                 HttpResponse r = answer_at(c, "/media/" + std::string(path.substr(9)));
                 if (r.status != 200 || !c.request.header("Range")) return r;
                 const std::size_t size = r.body.size();
                 r.status = 206;
                 r.body.resize(std::min<std::size_t>(size, 64));
                 r.headers.emplace_back("Content-Range", "bytes 0-" + std::to_string(r.body.size() - 1) +
                                                             "/" + std::to_string(size));
                 return r;
               }});
  return v;
}

namespace {

// /edw/api/entities-images/<digits>/: a record's detail route.
std::optional<std::uint64_t> detail_id(const Call& c) {
  const std::string_view path = path_of(c.request);
  constexpr std::string_view kList = "/edw/api/entities-images/";
  if (!path.starts_with(kList) || !path.ends_with('/') || path.size() <= kList.size() + 1)
    return std::nullopt;
  const std::string_view digits = path.substr(kList.size(), path.size() - kList.size() - 1);
  if (digits.find_first_not_of("0123456789") != std::string_view::npos) return std::nullopt;
  return std::stoull(std::string(digits));
}

bool is_slashless(const Call& c) {
  return path_of(c.request) == "/edw/api/entities-images";
}

}  // namespace

std::vector<Variant> follow_up_variants() {
  std::vector<Variant> v;
  v.push_back({"detail-route-loses-records",
               Kind::Broken,
               "detail_matches_list",
               {"detail_matches_list"},
               "the detail route answers DRF's 404 for every record of an odd id (a read replica behind "
               "the detail route that lags, or a queryset filtered differently from the list's)",
               "",
               [](const Call& c) {
                 const auto id = detail_id(c);
                 if (!id || *id % 2 == 0) return c.answer();
                 return json_error(404, "Not found.");
               }});
  v.push_back(
      {"detail-route-serializes-differently",
       Kind::Broken,
       "detail_matches_list",
       {"detail_matches_list"},
       "the detail route's record says alt \"(no text)\" where the list's says \"\" (another serializer)",
       "",
       [](const Call& c) {
         HttpResponse r = c.answer();
         if (!detail_id(c)) return r;
         if (auto body = page_of(r); body && body->contains("alt")) {
           (*body)["alt"] = "(no text)";
           set_body(r, *body);
         }
         return r;
       }});
  v.push_back({"slashless-path-not-found",
               Kind::Broken,
               "slashless_redirect",
               {"slashless_redirect"},
               "the path without its trailing slash answers Django's 404 page (APPEND_SLASH off)",
               "",
               [](const Call& c) {
                 if (!is_slashless(c)) return c.answer();
                 HttpRequest moved = c.request;
                 moved.target = "/edw/api/no-such-route/";
                 return c.correct(moved);
               }});
  v.push_back({"slashless-redirect-drops-query",
               Kind::Broken,
               "slashless_redirect",
               {"slashless_redirect"},
               "the slashless path redirects (301) to the slashed path without its query (a front server's "
               "rewrite rule that forgets $args)",
               "",
               [](const Call& c) {
                 if (!is_slashless(c)) return c.answer();
                 return HttpResponse{
                     301, "text/html; charset=utf-8", {{"Location", "/edw/api/entities-images/"}}, ""};
               }});
  v.push_back({"etag-the-same-for-every-page",
               Kind::Broken,
               "revalidation",
               {"revalidation"},
               "every JSON answer carries the ETag \"v1\", and If-None-Match: \"v1\" gets 304 on any URL (a "
               "cache keyed on the ETag alone)",
               "",
               [](const Call& c) {
                 if (c.request.header("If-None-Match") == "\"v1\"")
                   return HttpResponse{304, "", {{"ETag", "\"v1\""}}, ""};
                 HttpResponse r = c.answer();
                 if (r.status == 200) r.headers.emplace_back("ETag", "\"v1\"");
                 return r;
               }});
  v.push_back({"authenticated-answers-kept-by-shared-caches",
               Kind::Broken,
               "authenticated_not_shared",
               {"authenticated_not_shared"},
               "every answer says Cache-Control: public, max-age=600, also to a request with credentials "
               "(right for anonymous answers: without credentials the suite passes it)",
               "",
               [](const Call& c) {
                 HttpResponse r = c.answer();
                 set_header(r, "Cache-Control", "public, max-age=600");
                 return r;
               },
               false,
               "",
               "Authorization: Bearer not-a-token-the-mock-knows"});
  return v;
}

}  // namespace entimg::broken::detail
