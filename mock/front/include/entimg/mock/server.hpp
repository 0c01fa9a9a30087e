#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>

#include "entimg/mock/behaviour.hpp"
#include "entimg/mock/options.hpp"
#include "entimg/mock/service.hpp"

namespace entimg::mock {

/// The service behind the mock's own connection front (docs/mock.md, "Connections"). bind() then run()
/// (blocking) or start() (in a thread); stop() from any thread. Idle connections, slow clients and
/// delayed answers hold no worker thread.
class MockServer {
 public:
  MockServer(std::shared_ptr<const Service> service, ServerOptions options);
  MockServer(RequestHandler handler, ServerOptions options);
  ~MockServer();
  MockServer(const MockServer&) = delete;
  MockServer& operator=(const MockServer&) = delete;

  /// Binds and listens (once); returns the port, or throws std::runtime_error saying why not.
  int bind();
  /// Serves until stop(); returns false if the server could not run.
  bool run();
  /// bind() if not done yet, then run() on a background thread; the socket accepts on return.
  void start();
  void stop();
  int port() const { return port_; }
  /// "http://127.0.0.1:PORT"
  std::string url() const;
  /// "http://127.0.0.1:PORT/__mock/" with --admin (on --admin-port when given), else "".
  std::string admin_url() const;

  struct Impl;  ///< opaque; declared here so that server.cpp's helpers can name it

 private:
  std::unique_ptr<Impl> impl_;
  int port_ = 0;
  int admin_port_ = 0;
};

}  // namespace entimg::mock
