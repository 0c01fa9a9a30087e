#pragma once
// The mock around its service, whatever carries the requests: a CORS preflight, the admin routes, the
// fault plan (seeded, or X-Mock-* headers), the answer or a failure's, the middleware (CORS headers, then
// --gzip), the journal and the log. The epoll front (server.cpp) and the WebAssembly front
// (mock/wasm/binding.cpp) both call it, so both fronts answer alike (docs/npm.md).
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "entimg/mock/behaviour.hpp"
#include "entimg/mock/http_types.hpp"
#include "entimg/mock/options.hpp"

namespace entimg::mock::detail {

/// What the application decides for a request when it arrives: answer now, after a delay, or never.
struct Admission {
  Plan plan;                             ///< delay, drop, slow body, failure
  std::optional<HttpResponse> response;  ///< the answer when it is known at once (a refusal, a preflight)
};

/// One line of the request log, or of an error; the front decides where it goes (stderr, the console).
using LogSink = std::function<void(const std::string& line)>;

class MockApp {
 public:
  MockApp(RequestHandler handler, AppOptions options, LogSink log);
  ~MockApp();
  MockApp(const MockApp&) = delete;
  MockApp& operator=(const MockApp&) = delete;

  /// The service's port: a preflight or an admin route answers at once; anything else gets its plan.
  Admission admit(const HttpRequest& request);
  /// The admin port (--admin-port): the admin routes, preflights, and 404 for the rest.
  Admission admit_admin_only(const HttpRequest& request);
  /// The answer once the plan's delay is over: its failure, or the handler's answer, with the middleware.
  /// A handler that throws is answered 500, as Django answers an unhandled exception, and logged.
  HttpResponse respond(const HttpRequest& request, const Plan& plan);
  /// After the answer left (status 0: dropped): the journal and the log.
  void finished(const HttpRequest& request, int status, std::uint64_t body_bytes, double milliseconds);
  /// POST /__mock/reset also removes the uploads through this.
  void set_reset_uploads(std::function<std::size_t()> reset);
  bool admin() const;

 private:
  void wrap(const HttpRequest& request, HttpResponse& response) const;
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace entimg::mock::detail
