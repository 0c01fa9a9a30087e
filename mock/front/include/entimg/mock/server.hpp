#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>

#include "entimg/mock/behaviour.hpp"
#include "entimg/mock/service.hpp"

namespace entimg::mock {

struct ServerOptions {
  std::string host = "127.0.0.1";
  int port = 8000;          ///< 0 picks a free port
  std::size_t threads = 0;  ///< workers that compute answers; 0: one per core, plus two
  FaultOptions faults;      ///< latency and faults (X-Mock-* headers work whatever these are)
  CorsOptions cors;
  LogFormat log = LogFormat::none;  ///< the request log, on stderr
  ConnectionLimits limits;          ///< sizes and timeouts of requests and connections (--max-body, ...)
  /// --gzip: Django's GZipMiddleware in front of the view (gzip when asked, Vary: Accept-Encoding);
  /// without it no answer is compressed, as DRF sends none.
  bool gzip = false;
  /// --memo-bytes: answers to repeated GET/HEAD requests (same target, every header the same) on
  /// unchanged data are kept up to this many bytes and sent again; 0 computes every answer.
  std::size_t memo_bytes = std::size_t{8} << 20;
  /// --admin: the routes under /__mock/ (journal, reset, faults); --admin-port N (0: any free port)
  /// serves them on a port of their own instead; -1 keeps them on the service's port.
  bool admin = false;
  int admin_port = -1;
  std::size_t journal_size = 10000;  ///< --journal-size: the requests the journal keeps (the latest)
  /// --journal-bytes: and at most this many bytes of them (each entry counted as its listing's JSON)
  std::size_t journal_bytes = std::size_t{32} << 20;
};

/// Options with an address and a worker count, the rest left as they are by default.
inline ServerOptions listen_on(std::string host, int port, std::size_t threads) {
  ServerOptions o;
  o.host = std::move(host);
  o.port = port;
  o.threads = threads;
  return o;
}

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
