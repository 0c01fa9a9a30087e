#pragma once
// The monitor's web server (/metrics, /report.html, /report.json): one thread over one epoll set, so no
// client holds it. A connection is read and written only when its socket is ready; a head not whole in
// time and a client that takes no byte of its answer in time are closed; at the connection limit the
// connection idle longest makes room for a new one.
// (A Prometheus server scrapes it every few seconds with a 10 s timeout; slow clients must not starve it.)
#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

namespace entimg::contract::detail {

/// What a route answers.
struct MonitorAnswer {
  int status = 200;
  std::string content_type;
  std::string body;
};

struct MonitorServerOptions {
  std::string host = "127.0.0.1";
  int port = 0;
  /// At the limit a new connection closes the one idle longest (no whole request yet); when every
  /// connection is being answered, the new one gets 503 and a close.
  std::size_t max_connections = 512;
  std::size_t max_head = 16384;                   ///< a longer request head gets 431
  std::chrono::milliseconds head_timeout{5000};   ///< a head not whole by then: closed
  std::chrono::milliseconds send_timeout{10000};  ///< no byte of the answer taken by then: closed
};

class MonitorServer {
 public:
  /// `route` answers a GET of a path (query cut off); HEAD gets its headers, other methods 405.
  using Route = std::function<MonitorAnswer(std::string_view path)>;
  MonitorServer(MonitorServerOptions options, Route route);
  ~MonitorServer();
  MonitorServer(const MonitorServer&) = delete;
  MonitorServer& operator=(const MonitorServer&) = delete;

  /// Binds and listens; returns the port (the one chosen for port 0), or -1 when it cannot.
  int bind();
  /// Serves on the calling thread until stop().
  void run();
  /// From any thread (or a signal's handler thread); run() returns soon after.
  void stop();

  struct State;

 private:
  std::unique_ptr<State> state_;
};

}  // namespace entimg::contract::detail
