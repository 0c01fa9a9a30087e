#pragma once
// A TCP server that answers each connection with a script: any bytes, pauses, a reset. For what no
// HTTP library would send: garbage status lines, bodies shorter than announced, trickled bytes,
// answers that never come.
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace entimg::broken {

class RawServer {
 public:
  /// One accepted connection whose request head (request line and headers) has been read.
  class Connection {
   public:
    const std::string& request_head() const { return head_; }
    /// "GET", "HEAD", …
    std::string_view method() const;
    /// The request-target as sent.
    std::string_view target() const;
    /// False once the peer is gone or the server is stopping.
    bool send(std::string_view bytes);
    /// Waits; false when the server stops meanwhile.
    bool pause(std::chrono::milliseconds duration);
    /// Closes the connection with a TCP reset.
    void reset();
    /// Reads the next request head on this (keep-alive) connection; false when none comes.
    bool next_request();

   private:
    friend class RawServer;
    Connection(RawServer& server, int fd, std::string head)
        : server_(server), fd_(fd), head_(std::move(head)) {}
    RawServer& server_;
    int fd_;
    std::string head_;
    bool reset_ = false;
  };
  using Script = std::function<void(Connection&)>;

  /// Listens on 127.0.0.1 (port 0: a free one) and serves every connection with script on its own thread.
  explicit RawServer(Script script, int port = 0);
  ~RawServer();
  RawServer(const RawServer&) = delete;
  RawServer& operator=(const RawServer&) = delete;

  int port() const { return port_; }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  /// Connections accepted so far.
  std::size_t connections() const;
  /// Stops accepting, wakes every pause, closes every connection and joins the threads.
  void stop();

 private:
  struct State;
  std::unique_ptr<State> state_;
  int port_ = 0;
};

/// "HTTP/1.1 <status> <reason>" with Content-Type, Content-Length, Connection: close (unless
/// keep_alive) and the extra headers, then body.
std::string http_answer(int status, std::string_view reason, std::string_view content_type,
                        std::string_view body,
                        const std::vector<std::pair<std::string, std::string>>& extra_headers = {},
                        bool keep_alive = false);

}  // namespace entimg::broken
