#pragma once
// Any HttpRequest -> HttpResponse function served as the mock is served: MockServer with a
// handler, so broken variants and scripted answers share the mock's transport and its tuning.
#include <functional>
#include <string>

#include "entimg/mock/server.hpp"

namespace entimg::broken {

using Handler = mock::RequestHandler;

class HandlerServer {
 public:
  /// port 0 picks a free port.
  explicit HandlerServer(Handler handler, std::string host = "127.0.0.1", int port = 0)
      : server_(std::move(handler), mock::listen_on(std::move(host), port, 32)) {}

  /// Binds and listens (once); returns the port, or throws std::runtime_error saying why not.
  int bind() { return server_.bind(); }
  /// Serves until stop(); false if the server could not run.
  bool run() { return server_.run(); }
  /// bind() (when not done yet) and run() on a background thread; the socket accepts on return.
  void start() { server_.start(); }
  void stop() { server_.stop(); }
  int port() const { return server_.port(); }
  /// "http://127.0.0.1:PORT"
  std::string url() const { return server_.url(); }

 private:
  mock::MockServer server_;
};

}  // namespace entimg::broken
