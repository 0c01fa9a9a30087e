#pragma once
// The HTTP values the service and its helpers exchange, independent of the HTTP library.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace entimg::mock {

/// Which of the middleware of Django's project template an answer passed on its way out, so the mock adds
/// their headers where a deployment's do (docs/mock.md, "Security headers"): SecurityMiddleware is the
/// outermost (X-Content-Type-Options, Referrer-Policy), XFrameOptionsMiddleware the innermost
/// (X-Frame-Options).
enum class DjangoMiddleware : std::uint8_t {
  all,            ///< the views' answers and Django's own error pages: every header
  security_only,  ///< answered by a middleware above XFrameOptionsMiddleware (APPEND_SLASH's 301, a bad Host)
  none,           ///< not Django's: the front server's pictures and pages, the mock's own routes and refusals
};

/// What the service needs of an HTTP request, independent of the HTTP library.
struct HttpRequest {
  std::string method;
  std::string target;  ///< the raw request-target: path and query exactly as received
  std::vector<std::pair<std::string, std::string>> headers;
  std::string server_authority;  ///< "127.0.0.1:8000": Django's SERVER_NAME:PORT, used without a Host header
  std::string body;              ///< the request body as received (the transport caps its size)

  /// The header's value; repeated headers joined with ',' as WSGI servers do. Case-insensitive.
  std::optional<std::string> header(std::string_view name) const;
};

/// A body made piece by piece as it is sent rather than held whole (a picture of its file's size:
/// docs/mock.md, "Pictures"): its size, and any part of it on demand.
class BodySource {
 public:
  virtual ~BodySource() = default;
  virtual std::uint64_t size() const = 0;
  /// Writes the bytes [offset, offset + n) into `out`; offset + n <= size().
  virtual void write(std::uint64_t offset, char* out, std::size_t n) const = 0;
  /// The whole body where it is held in memory (a front sends it from there), else empty.
  virtual std::string_view held() const { return {}; }
};

/// A body held in memory and shared, e.g. by the memo's answers: sent from where it is, never copied.
class HeldBody final : public BodySource {
 public:
  explicit HeldBody(std::string bytes) : bytes_(std::move(bytes)) {}
  std::uint64_t size() const override { return bytes_.size(); }
  void write(std::uint64_t offset, char* out, std::size_t n) const override {
    bytes_.copy(out, n, static_cast<std::size_t>(offset));
  }
  std::string_view held() const override { return bytes_; }

 private:
  std::string bytes_;
};

struct HttpResponse {
  int status = 200;
  std::string content_type;
  std::vector<std::pair<std::string, std::string>> headers;  ///< besides Content-Type and Content-Length
  std::string body;  ///< for HEAD too: the transport sends its length and drops it
  /// When set, the body instead of `body` (which stays empty): each front sends it in pieces.
  std::shared_ptr<const BodySource> source = nullptr;
  /// The answer Django makes without a Content-Length (its 400 for an unusable Host skips the middleware
  /// that sets one), so the front frames it as gunicorn does: chunked on HTTP/1.1, closed after the body on
  /// HTTP/1.0, no length at all on HEAD. Every front honours it.
  bool without_content_length = false;
  DjangoMiddleware passed = DjangoMiddleware::all;  ///< whose headers it gets (security_headers.hpp)
};

/// The body's length, held or made in pieces.
inline std::uint64_t body_size(const HttpResponse& response) {
  return response.source ? response.source->size() : response.body.size();
}

/// The whole body, made from its source if it has one (for a front that cannot send it in pieces).
std::string whole_body(const HttpResponse& response);

/// What answers a request; the mock's is Service::handle, tests serve altered answers.
using RequestHandler = std::function<HttpResponse(const HttpRequest&)>;

/// The reason phrase Python's http.HTTPStatus gives a status, as Django and its servers send it
/// ("Unknown Status Code" for one it does not name).
std::string_view reason_phrase(int status);

/// How the mock bounds requests and connections, as nginx and gunicorn bound them; each has the flag
/// named beside it (docs/mock.md, "Connections").
struct ConnectionLimits {
  std::size_t max_request_line = 8190;  ///< --max-request-line: a longer request line gets 414
  std::size_t max_header_line = 8190;   ///< --max-header-line: a longer header line gets 431 (gunicorn)
  std::size_t max_headers = 100;        ///< --max-headers: more header lines get 431 (gunicorn)
  std::size_t max_head = 65536;         ///< --max-head: a longer request head gets 431
  std::size_t max_chunk_line = 1024;    ///< --max-chunk-line: a longer chunk-size line gets 400
  std::uint64_t max_body = std::uint64_t{10} << 20;  ///< --max-body: a longer body gets 413 (nginx)
  std::uint32_t head_timeout_ms = 10'000;        ///< --head-timeout: a slower head (or body pause) gets 408
  std::uint32_t keep_alive_timeout_ms = 75'000;  ///< --keep-alive-timeout: idle connections close (nginx)
  std::uint32_t send_timeout_ms = 60'000;        ///< --send-timeout: a client that reads nothing is closed
  std::size_t max_connections = 16384;           ///< --max-connections: one more gets 503 and a close
};

/// The one user DRF's BasicAuthentication accepts (--user NAME:PASSWORD).
struct User {
  std::string name, password;
};

}  // namespace entimg::mock
