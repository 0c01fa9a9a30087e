#pragma once
// How the mock takes connections: a few worker threads wait on one epoll set, and a connection is
// worked on only while it has bytes to read or write. Idle keep-alive connections, slow senders and
// delayed answers hold no thread. docs/mock.md, "Connections".
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "app.hpp"
#include "entimg/mock/behaviour.hpp"
#include "entimg/mock/http_types.hpp"
#include "entimg/mock/options.hpp"
#include "request_parser.hpp"

namespace entimg::mock::detail {

using Millis = std::chrono::milliseconds;

/// The application behind the front (the mock's service with its faults, CORS and log).
class FrontHandler {
 public:
  virtual ~FrontHandler() = default;
  virtual Admission admit(const HttpRequest& request) = 0;
  /// The answer, once the admission's delay is over; called on a worker thread.
  virtual HttpResponse respond(const HttpRequest& request, const Plan& plan) = 0;
  /// After the answer is handed to the connection; status 0 when it was dropped.
  virtual void finished(const HttpRequest& request, int status, std::uint64_t body_bytes,
                        double milliseconds) = 0;
};

class ConnectionFront {
 public:
  ConnectionFront(FrontOptions options, FrontHandler& handler);
  ~ConnectionFront();
  ConnectionFront(const ConnectionFront&) = delete;
  ConnectionFront& operator=(const ConnectionFront&) = delete;

  /// Binds and listens; returns the port, or throws std::runtime_error saying why not.
  int bind();
  /// Serves on the calling thread and `threads - 1` more until stop(); false if it could not run.
  bool run();
  /// From any thread; run() returns soon after. Delays under way end without an answer.
  void stop();

  struct State;

 private:
  std::unique_ptr<State> state_;
};

}  // namespace entimg::mock::detail
