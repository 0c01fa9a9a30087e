#pragma once
// Any HttpRequest -> HttpResponse function served on cpp-httplib, as MockServer serves the mock's
// Service (whose handle() is not virtual, so a corrupting wrapper needs a server of its own).
#include <functional>
#include <memory>
#include <string>

#include "entimg/mock/service.hpp"

namespace entimg::broken {

using Handler = std::function<mock::HttpResponse(const mock::HttpRequest&)>;

class HandlerServer {
 public:
  /// port 0 picks a free port.
  HandlerServer(Handler handler, std::string host = "127.0.0.1", int port = 0);
  ~HandlerServer();
  HandlerServer(const HandlerServer&) = delete;
  HandlerServer& operator=(const HandlerServer&) = delete;

  /// Binds and listens; returns the port, or throws std::runtime_error saying why not.
  int bind();
  /// Serves until stop(); false if the server could not run.
  bool run();
  /// bind() (when not done yet) and run() on a background thread; the socket accepts on return.
  void start();
  void stop();
  int port() const { return port_; }
  /// "http://127.0.0.1:PORT"
  std::string url() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  int port_ = 0;
};

}  // namespace entimg::broken
