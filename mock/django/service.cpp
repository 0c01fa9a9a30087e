// Routing and the Django layer around the view: host and scheme (reference §2.5), APPEND_SLASH
// (§3.7), Django's HTML error pages, then the DRF view (list_view.cpp).
#include "entimg/mock/service.hpp"
#include "placeholder_image.hpp"
#include "sized_picture.hpp"

#include <algorithm>
#include <cctype>

#include "byte_ranges.hpp"
#include "churn.hpp"
#include "django_pages.hpp"
#include "entimg/common/ascii.hpp"
#include "entimg/common/url.hpp"
#include "list_view.hpp"
#include "pagination.hpp"
#include "routes.hpp"

namespace entimg::mock {
namespace {

HttpResponse html_page(int status, std::string body) {
  return HttpResponse{status, "text/html", {}, std::move(body)};
}

bool is_lower_alnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

// Django's host_validation_re, ^([a-z0-9.-]+|\[[a-f0-9]*:[a-f0-9\.:]+\])(:\d+)?$ on the lower-cased
// host, then a non-empty domain once a trailing dot is dropped. Hand-written: it runs per request.
bool valid_django_host(std::string_view host) {
  const std::string h = common::ascii_lowered(host);
  std::size_t end = 0;
  std::string_view domain;
  if (!h.empty() && h[0] == '[') {
    const std::size_t close = h.find(']');
    const std::size_t colon = h.find(':');
    if (close == std::string::npos || colon == std::string::npos || colon > close || colon + 1 == close)
      return false;
    for (std::size_t i = 1; i < close; ++i) {
      const char c = h[i];
      const bool hex = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
      if (!(hex || c == ':' || (c == '.' && i > colon))) return false;
    }
    end = close + 1;
    domain = std::string_view(h).substr(0, end);
  } else {
    while (end < h.size() && (is_lower_alnum(h[end]) || h[end] == '.' || h[end] == '-'))
      ++end;
    if (end == 0) return false;
    domain = std::string_view(h).substr(0, end);
    if (domain.back() == '.') domain.remove_suffix(1);
    if (domain.empty()) return false;
  }
  if (end == h.size()) return true;
  if (h[end] != ':' || end + 1 == h.size()) return false;
  return std::all_of(h.begin() + static_cast<std::ptrdiff_t>(end) + 1, h.end(),
                     [](char c) { return c >= '0' && c <= '9'; });
}

// HttpRequest.get_host() with USE_X_FORWARDED_HOST and ALLOWED_HOSTS=['*']: nullopt when
// Django would raise DisallowedHost (an answer of 400).
std::optional<std::string> request_host(const HttpRequest& request) {
  std::optional<std::string> host = request.header("X-Forwarded-Host");
  if (!host) host = request.header("Host");
  if (!host) return request.server_authority;
  if (!valid_django_host(*host)) return std::nullopt;
  return host;
}

// Django's escape_uri_path: quote(path, safe="/:@&+$,-_.!~*'()").
std::string escape_uri_path(std::string_view path) {
  static constexpr common::PercentSafe kSafe = common::quote_safe("/:@&+$,-_.!~*'()");  // built once
  std::string out;
  common::append_quote(out, path, kSafe);
  return out;
}

// Django's request.path: the decoded path, with each byte that is not part of well-formed UTF-8
// percent-encoded again (repercent_broken_unicode).
std::string repercent_broken_utf8(std::string_view path) {
  const std::string replaced = common::utf8_replace_invalid(path);
  if (replaced.size() == path.size() && replaced == path) return replaced;
  std::string out;
  for (std::size_t i = 0; i < path.size();) {
    std::size_t n = 1;
    const auto b0 = static_cast<unsigned char>(path[i]);
    if (b0 >= 0xC2 && b0 <= 0xF4) {
      n = b0 < 0xE0 ? 2 : b0 < 0xF0 ? 3 : 4;
      const std::string_view piece = path.substr(i, n);
      if (piece.size() != n || common::utf8_replace_invalid(piece) != piece) n = 0;
    } else if (b0 >= 0x80) {
      n = 0;
    }
    if (n == 0) {
      common::append_percent_escape(out, b0);
      ++i;
    } else {
      out.append(path.substr(i, n));
      i += n;
    }
  }
  return out;
}

// WSGI servers hand Django the query string as latin-1 text; a raw byte >= 0x80 therefore reaches
// parse_qs as the code point U+00XX (iri_to_uri and unquote keep it), while %XX escapes are bytes.
std::string wsgi_query_as_uri(std::string_view raw) {
  std::string out;
  for (const char ch : raw) {
    const auto c = static_cast<unsigned char>(ch);
    if (c < 0x80) {
      out.push_back(ch);
    } else {
      common::append_percent_escape(out, static_cast<unsigned char>(0xC0 | (c >> 6)));
      common::append_percent_escape(out, static_cast<unsigned char>(0x80 | (c & 0x3F)));
    }
  }
  return out;
}

// The front server's answer for a picture it serves itself: no Django middleware sees it.
HttpResponse from_front(HttpResponse response) {
  response.passed = DjangoMiddleware::none;
  return response;
}

// A record's picture at its file's size, made in pieces as the front sends it.
class SizedPictureSource final : public BodySource {
 public:
  explicit SizedPictureSource(detail::SizedPicture picture) : picture_(std::move(picture)) {}
  std::uint64_t size() const override { return picture_.size(); }
  void write(std::uint64_t offset, char* out, std::size_t n) const override {
    picture_.write(offset, out, n);
  }

 private:
  detail::SizedPicture picture_;
};

// A record's picture: its placeholder, or (--sized-pictures) the placeholder grown to the record's file_size.
HttpResponse picture_of(const Record& record, bool sized) {
  detail::Placeholder picture =
      detail::placeholder_for(record.mime_type, static_cast<std::uint64_t>(record.id), record.id);
  HttpResponse response{200, std::move(picture.content_type), {}, {}, nullptr};
  if (sized && record.file_size > 0) {
    detail::SizedPicture grown(picture, static_cast<std::uint64_t>(record.file_size));
    if (grown.size() != picture.bytes.size()) {
      response.source = std::make_shared<const SizedPictureSource>(std::move(grown));
      return response;
    }
  }
  response.body = std::move(picture.bytes);
  return response;
}

// MEDIA_URL, as the front server (nginx) serves files: a record's file, Range requests answered as its
// static module answers them.
HttpResponse media(const LiveDataset& dataset, const HttpRequest& request, std::string_view file,
                   bool sized) {
  if (request.method != "GET" && request.method != "HEAD")
    return from_front({405, "text/plain; charset=utf-8", {{"Allow", "GET, HEAD"}}, "Method Not Allowed\n"});
  const auto record = dataset.find_by_file(file);
  if (!record)
    return html_page(
        404, detail::django_error_page("Not Found", "The requested resource was not found on this server."));
  if (auto uploaded = dataset.uploaded_bytes(file))  // an upload's own bytes, typed as its extension says
    return detail::answer_ranges(
        request, from_front({200,
                             record->mime_type.empty() ? "application/octet-stream" : record->mime_type,
                             {},
                             std::move(*uploaded)}));
  return detail::answer_ranges(request, from_front(picture_of(*record, sized)));
}

// What Django hands the view: the method, the headers it reads, the body, the query as QueryDict reads it,
// and the URLs it builds (request.path, get_full_path(), build_absolute_uri()).
detail::ViewRequest view_request(const HttpRequest& request, const std::string& path,
                                 std::string_view raw_query, const std::string& host, const User* user) {
  detail::ViewRequest view;
  view.method = request.method;  // Django's WSGIRequest upper-cases it: 'get' is served as GET
  common::ascii_upper_in_place(view.method);
  view.accept = request.header("Accept");
  view.authorization = request.header("Authorization");
  view.content_type = request.header("Content-Type");
  view.body = request.body;
  const auto length = request.header("Content-Length");
  view.has_body = request.header("Transfer-Encoding").has_value() ||
                  (length && !length->empty() && length->find_first_not_of('0') != std::string::npos);
  view.user = user;
  // request.GET is a QueryDict of the query's bytes, read as UTF-8 (get_bytes_from_wsgi), so a raw
  // UTF-8 byte is part of its character; links come from the latin-1 text (build_absolute_uri).
  const std::string query = wsgi_query_as_uri(raw_query);
  view.params = common::parse_query(raw_query);
  const std::string scheme = request.header("X-Forwarded-Proto") == "https" ? "https" : "http";
  view.origin = scheme + "://" + host;
  view.path = escape_uri_path(path);
  view.request_path = repercent_broken_utf8(path);
  // get_full_path(): the query through iri_to_uri, which quotes what a URI may not hold.
  static constexpr common::PercentSafe kIriSafe = common::quote_safe("/#%[]=:;$&()+,!?*@'~");
  view.full_path = view.path;
  if (!query.empty()) {
    view.full_path += '?';
    common::append_quote(view.full_path, query, kIriSafe);
  }
  view.url.origin_and_path = view.origin + view.path;
  view.url.params = common::parse_query(query);
  return view;
}

}  // namespace

Service::Service(std::shared_ptr<const Dataset> dataset, std::optional<User> user, ServiceOptions options)
    : dataset_(std::make_shared<LiveDataset>(std::move(dataset), std::nullopt)),
      user_(std::move(user)),
      options_(options) {}

Service::Service(std::shared_ptr<LiveDataset> dataset, std::optional<User> user, ServiceOptions options)
    : dataset_(std::move(dataset)), user_(std::move(user)), options_(options) {}

std::uint64_t Service::data_version() const {
  return dataset_->generation();
}

std::size_t Service::reset_uploads() const {
  return dataset_->reset();
}

HttpResponse Service::handle(const HttpRequest& request) const {
  // X-Mock-Time: the moment of a live collection (--churn) this request sees, for a test to replay.
  std::optional<std::uint64_t> at;
  if (const auto time = request.header("X-Mock-Time")) {
    at = common::digits(*time);
    if (!at) {
      HttpResponse refusal{400, "text/plain; charset=utf-8", {}, {}};
      refusal.body = "X-Mock-Time: expected whole milliseconds since the mock started (or was reset), got '" +
                     *time + "'\n";
      refusal.passed = DjangoMiddleware::none;  // the mock's own refusal
      return refusal;
    }
  }
  detail::set_request_time(at);
  HttpResponse answer = handle_at(request);
  detail::set_request_time(std::nullopt);
  return answer;
}

HttpResponse Service::handle_at(const HttpRequest& request) const {
  const std::string_view target = request.target;
  const std::size_t q = target.find('?');
  const std::string path = common::percent_decode(target.substr(0, q), false);
  const std::string_view raw_query = q == std::string_view::npos ? std::string_view{} : target.substr(q + 1);

  // CommonMiddleware asks for the host first, on every path.
  const std::optional<std::string> host = request_host(request);
  // DisallowedHost comes out of CommonMiddleware's process_request, so its process_response, which sets
  // Content-Length, never sees this answer: the server frames it without one.
  if (!host) {
    HttpResponse refused = detail::django_bad_request();
    refused.without_content_length = true;
    refused.passed = DjangoMiddleware::security_only;
    return refused;
  }

  // MEDIA_URL: each record's picture (a placeholder made for it; docs/mock.md). Only files of records
  // are served, looked up by exact path, so nothing else can be reached however the path is spelled.
  if (path.starts_with("/media/"))
    return media(*dataset_, request, std::string_view(path).substr(7), options_.sized_pictures);

  const detail::Resolved resolved = detail::resolve(path);
  if (!resolved.route) {
    if (!path.ends_with('/') && detail::resolve(path + "/").route) {
      HttpResponse redirect{301, "text/html; charset=utf-8", {}, {}};
      std::string location = escape_uri_path(path) + "/";
      if (!raw_query.empty())
        location.append("?").append(wsgi_query_as_uri(raw_query));  // no GCC 12 -Wrestrict
      redirect.headers.emplace_back("Location", std::move(location));
      redirect.passed = DjangoMiddleware::security_only;  // CommonMiddleware's process_request answers it
      return redirect;
    }
    return html_page(
        404, detail::django_error_page("Not Found", "The requested resource was not found on this server."));
  }

  detail::ViewRequest view = view_request(request, path, raw_query, *host, user_ ? &*user_ : nullptr);
  view.route = resolved.route;
  view.format_suffix = resolved.format_suffix;
  view.pk = resolved.pk;
  // edw's retrieve ignores the entity; its update() on the nested route reads it.
  view.entity_pk = resolved.entity_pk;
  return resolved.route->view(*dataset_, view);
}

}  // namespace entimg::mock
