// The variants of what a client asks past the list. The pictures a deployment serves at its records' image
// URLs (MEDIA_URL): lost files, an app's page in their place, wrong types and bytes, redirects that lead
// nowhere, and the tolerated way a storage host serves them (a redirect, 206 to a Range). The detail route,
// the slashless path and revalidation, each broken where a client meets it.
#include <string>

#include "byte_ranges.hpp"
#include "entimg/common/ascii.hpp"
#include "placeholder_image.hpp"
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

// The position in the collection of the record whose picture the request asks (the generated collection's
// ids are 3 x position + 1 to 3); nullopt when the deployment has no such record or its records are not
// known.
std::optional<std::uint64_t> picture_position(const Call& c) {
  if (c.dataset == nullptr || !is_picture(c)) return std::nullopt;
  const std::string file = common::percent_decode(path_of(c.request).substr(7), false);
  const auto record = c.dataset->find_by_file(file);
  if (!record || record->id < 1) return std::nullopt;
  return static_cast<std::uint64_t>(record->id - 1) / 3;
}

// The picture cut to half its bytes, as an aborted copy leaves a file: the right status, type and first
// bytes, no end. A Range is answered from what is left of the file, as the static file server that serves
// it answers one (a 206's Content-Range total is the cut length).
HttpResponse cut_short(const Call& c) {
  const auto named = [](std::string_view name) {
    return [name](const auto& header) { return common::iequals_ascii(header.first, name); };
  };
  HttpRequest whole = c.request;
  std::erase_if(whole.headers, named("Range"));
  HttpResponse file = c.correct(whole);
  if (file.status != 200 || file.source) return c.answer();
  file.body.resize(file.body.size() / 2);
  std::erase_if(file.headers, named("Accept-Ranges"));
  return mock::detail::answer_ranges(c.request, std::move(file));
}

// The records' file_size set to their placeholder picture's length in bytes, as django-filer stores it.
void sized_as_filed(Json& record) {
  if (!record.is_object() || !record["id"].is_number_integer() || !record["mime_type"].is_string()) return;
  const std::int64_t id = record["id"].get<std::int64_t>();
  record["file_size"] = mock::detail::placeholder_for(record["mime_type"].get<std::string>(),
                                                      static_cast<std::uint64_t>(id), id)
                            .bytes.size();
}

// Every answer's records (list pages, a detail route's record) with file_size as filed.
HttpResponse with_filed_sizes(const Call& c) {
  return with_records_edited(c.answer(), "file_size", sized_as_filed);
}

// A JPEG record's picture answered as WebP when the request's Accept names image/webp (an image CDN's
// negotiation), with or without Vary: Accept.
HttpResponse negotiated_webp(const Call& c, bool vary) {
  HttpResponse r = c.answer();
  if (!is_picture(c) || r.status != 200 || r.content_type != "image/jpeg" ||
      c.request.header("Accept").value_or("").find("image/webp") == std::string::npos)
    return r;
  r.content_type = "image/webp";
  r.body = mock::detail::placeholder_webp(7, 7);
  if (vary) r.headers.emplace_back("Vary", "Accept");
  return r;
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
  v.push_back({"pictures-cut-short-on-the-last-page",
               Kind::Broken,
               "image_loads",
               {"image_loads"},
               "the pictures of the collection's last 12 records are cut to half their bytes (a copy aborted "
               "while they were uploaded last): status, type and first bytes right, no end",
               "",
               [](const Call& c) {
                 const auto at = picture_position(c);
                 const std::uint64_t records = c.dataset ? c.dataset->count(mock::Selection{}) : 0;
                 if (!at || *at + 12 < records) return c.answer();
                 return cut_short(c);
               }});
  v.push_back({"one-picture-in-2000-cut-short",
               Kind::Broken,
               "image_loads",
               {"image_loads"},
               "file_size is the picture's length in bytes (as django-filer stores it), and the picture of "
               "one record in 2000 (the 101st, the 2101st, …: 0.05 %) is cut to half its bytes, so its head "
               "alone says so (Content-Length below file_size)",
               "",
               [](const Call& c) {
                 const auto at = picture_position(c);
                 if (at && *at % 2000 == 100) return cut_short(c);
                 return with_filed_sizes(c);
               }});
  v.push_back(
      {"pictures-negotiated-without-vary",
       Kind::Broken,
       "image_loads",
       {"image_loads"},
       "JPEG records' pictures come as WebP to a request whose Accept names image/webp, without Vary: "
       "Accept (a shared cache hands WebP to every client)",
       "",
       [](const Call& c) { return negotiated_webp(c, false); }});
  v.push_back({"pictures-negotiated-with-vary",
               Kind::Tolerated,
               "",
               {},
               "JPEG records' pictures come as WebP to a request whose Accept names image/webp, with Vary: "
               "Accept (an image CDN's negotiation): a note",
               "",
               [](const Call& c) { return negotiated_webp(c, true); }});
  v.push_back({"pictures-sized-as-filed",
               Kind::Tolerated,
               "",
               {},
               "every record's file_size is its picture's length in bytes, as django-filer stores it: the "
               "suite takes it as the unit and finds every picture of that length",
               "",
               with_filed_sizes});
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

// Django's technical 404 page, as DEBUG = True renders it (shortened).
constexpr std::string_view kTechnical404 =
    "<!DOCTYPE html>\n<html lang=\"en\"><head><title>Page not found at /edw/api/</title></head><body>\n"
    "<div id=\"summary\"><h1>Page not found <span>(404)</span></h1></div>\n<div id=\"info\"><p>Using the "
    "URLconf defined in <code>project.urls</code>, Django tried these URL patterns, in this order:</p><ol>"
    "<li>admin/</li><li>edw/api/ ^entities-images/$</li></ol></div>\n<div id=\"explanation\"><p>You're "
    "seeing "
    "this error because you have <code>DEBUG = True</code> in your Django settings "
    "file.</p></div></body></html>\n";

std::vector<Variant> follow_up_variants() {
  std::vector<Variant> v;
  v.push_back(
      {"debug-page-on-unknown-urls",
       Kind::Broken,
       "debug_page_hidden",
       {"debug_page_hidden"},
       "DEBUG = True: a URL under /edw/api/ that no route matches answers Django's technical 404 page, "
       "listing the project's URL patterns",
       "",
       [](const Call& c) {
         HttpResponse r = c.answer();
         if (r.status != 404 || !path_of(c.request).starts_with("/edw/api/")) return r;
         r.content_type = "text/html; charset=utf-8";
         r.body = std::string(kTechnical404);
         return r;
       }});
  v.push_back({"detail-route-hides-one-record-in-100",
               Kind::Broken,
               "detail_matches_list",
               {"detail_matches_list"},
               "the detail route answers DRF's 404 for one record in 100 (the 38th, the 138th, …: records a "
               "detail queryset filters out), which only a full run's sample of records opened meets",
               "",
               [](const Call& c) {
                 const auto id = detail_id(c);
                 if (!id || *id == 0 || (*id - 1) / 3 % 100 != 37) return c.answer();
                 return json_error(404, "Not found.");
               }});
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
