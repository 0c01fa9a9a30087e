#pragma once
// What the mock does around the service, for testing an app: latency and faults (seeded, or asked for
// one request at a time with X-Mock-* headers), CORS for apps on another origin, and a request log.
// docs/mock.md, "Latency, faults, CORS, log".
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "entimg/mock/http_types.hpp"

namespace entimg::mock {

struct FaultOptions {
  std::uint32_t latency_ms = 0;  ///< --latency MS[:JITTER]: every answer waits MS, plus 0..JITTER
  std::uint32_t jitter_ms = 0;
  double fail_rate = 0;             ///< --fail-rate P: this share of requests gets fail_status
  int fail_status = 503;            ///< --fail-status N: a row of mock/src/fault_statuses.hpp
  double drop_rate = 0;             ///< --drop-rate P: this share is closed with no answer
  std::uint64_t slow_body_bps = 0;  ///< --slow-body BYTES_PER_S: bodies trickle at this rate; 0 = full speed
  std::uint64_t seed = 1;           ///< --seed: the draws above repeat from run to run
  /// --max-delay MS: the longest delay a request may ask for (X-Mock-Latency above it gets 400)
  std::uint32_t max_delay_ms = 60'000;
};

struct CorsOptions {
  std::vector<std::string> origins;  ///< --cors ORIGIN (repeatable); "*" allows any
  bool enabled() const { return !origins.empty(); }
};

/// What happens to one request besides the service's answer.
struct Plan {
  std::chrono::milliseconds delay{0};
  std::optional<int> fail_status;  ///< answer this instead of the service's
  bool drop = false;               ///< close the connection, answer nothing
  std::uint64_t slow_body_bps = 0;
  std::optional<HttpResponse> refusal;  ///< an X-Mock-* header that cannot be honoured: answered 400
};

/// Draws the plan of requests in arrival order (thread-safe); X-Mock-Latency, X-Mock-Fail, X-Mock-Drop
/// and X-Mock-Slow-Body on a request replace the draws for that request.
class FaultPlanner {
 public:
  explicit FaultPlanner(FaultOptions options);
  Plan plan(const HttpRequest& request);
  /// The options in force; replace() swaps them at run time (PUT /__mock/faults) and restarts the
  /// seeded draws, so the same requests then meet the same faults as after a start with them.
  FaultOptions options() const;
  void replace(FaultOptions options);

 private:
  struct State;
  FaultOptions options_;
  std::shared_ptr<State> state_;
};

/// The answer a failing deployment gives for `status` (Django's 500 page, a proxy's 502/503 page with
/// Retry-After on 503, DRF's throttled 429 body with Retry-After; nginx's 413 for a body over the limit).
HttpResponse failure_response(int status);

/// CORS as django-cors-headers answers it: a preflight (OPTIONS with Origin and
/// Access-Control-Request-Method) from an allowed origin gets 200 with the Access-Control-Allow-*
/// headers; nullopt for any other request.
std::optional<HttpResponse> cors_preflight(const CorsOptions& cors, const HttpRequest& request);
/// Adds Access-Control-Allow-Origin (and Expose-Headers, Vary: Origin) to an answer for an allowed origin.
void add_cors_headers(const CorsOptions& cors, const HttpRequest& request, HttpResponse& response);

/// Django's patch_vary_headers: adds `header` to the answer's Vary unless it names it (or '*') already.
void patch_vary_headers(HttpResponse& response, std::string_view header);

/// Whether Accept-Encoding offers gzip: listed (or '*') with a q above 0. Django's GZipMiddleware only
/// looks for the word, so it would compress for "gzip;q=0" too; the mock honours the q.
bool accepts_gzip(std::string_view accept_encoding);
/// Python's gzip.compress(data, compresslevel=6, mtime=0), as Django's compress_string calls it, byte for
/// byte (Python 3.11 and the same zlib).
std::string gzip_compress(std::string_view data);
/// Django's GZipMiddleware (--gzip): an answer of 200 bytes or more without a Content-Encoding gets
/// "Vary: Accept-Encoding", and its body gzipped when the client accepts gzip and that makes it shorter.
void apply_gzip_middleware(const HttpRequest& request, HttpResponse& response);

enum class LogFormat { none, text, json };

/// One line for the request log: "GET /path?query 200 1234 B 5.1 ms", or the same as a JSON object.
std::string log_line(LogFormat format, const std::string& method, const std::string& target, int status,
                     std::uint64_t bytes, double milliseconds);

}  // namespace entimg::mock
