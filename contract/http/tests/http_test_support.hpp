#pragma once
// What the HTTP client's tests share: servers on ephemeral loopback ports (cpp-httplib's, and a raw TCP one
// for servers that misbehave below HTTP), client options with short timeouts, and TLS certificates.
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <httplib.h>

#include <catch2/catch.hpp>

#include "entimg/contract/http.hpp"

namespace entimg::contract::test {

using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

// A hang guard for "did not hang", not a speed check: each case is bounded by what it counts (the failure
// kind: the timeout or cap that fired, the bytes cut); this is far above what a slow or busy machine needs
// for limits of a few hundred milliseconds, far below a hang.
inline constexpr auto kBounded = std::chrono::seconds(60);

inline std::string local(int port) {
  return "http://127.0.0.1:" + std::to_string(port);
}

/// A cpp-httplib server on an ephemeral loopback port, stopped and joined by its destructor.
template <typename ServerType = httplib::Server>
class TestServer {
 public:
  template <typename... Args>
  explicit TestServer(Args&&... args) : server_(std::forward<Args>(args)...) {
    server_.set_keep_alive_max_count(10000);
    // As the mock does: without it Nagle and delayed ACKs hold every keep-alive answer ~40 ms.
    server_.set_tcp_nodelay(true);
  }
  ~TestServer() { stop(); }
  TestServer(const TestServer&) = delete;
  TestServer& operator=(const TestServer&) = delete;

  ServerType& operator*() { return server_; }
  ServerType* operator->() { return &server_; }

  int start() {
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    // cpp-httplib 0.11 has no wait_until_ready, and stop() before the loop runs would be lost.
    const auto until = Clock::now() + kBounded;
    while (!server_.is_running() && Clock::now() < until)
      std::this_thread::sleep_for(1ms);
    return port_;
  }
  void stop() {
    if (!thread_.joinable()) return;
    server_.stop();
    thread_.join();
  }

 private:
  ServerType server_;
  std::thread thread_;
  int port_ = 0;
};

/// A loopback TCP server that hands each accepted socket to a handler on its own thread; handlers
/// must return once `stopping` is set. For servers that misbehave below HTTP.
class RawServer {
 public:
  using Handler = std::function<void(int fd, const std::atomic<bool>& stopping)>;

  explicit RawServer(Handler handler) : handler_(std::move(handler)) {
    listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = 0;
    auto* any = reinterpret_cast<sockaddr*>(&addr);
    socklen_t size = sizeof addr;
    if (::bind(listen_fd_, any, size) != 0 || ::listen(listen_fd_, 16) != 0 ||
        ::getsockname(listen_fd_, any, &size) != 0) {
      throw std::runtime_error("raw server: cannot listen on 127.0.0.1");
    }
    port_ = ntohs(addr.sin_port);
    acceptor_ = std::thread([this] { accept_loop(); });
  }
  ~RawServer() {
    stopping_ = true;
    acceptor_.join();
    for (auto& t : workers_)
      t.join();
    ::close(listen_fd_);
  }
  RawServer(const RawServer&) = delete;
  RawServer& operator=(const RawServer&) = delete;

  int port() const { return port_; }
  std::string url() const { return local(port_); }
  int connections() const { return connections_; }

 private:
  void accept_loop() {
    while (!stopping_) {
      pollfd p{listen_fd_, POLLIN, 0};
      if (::poll(&p, 1, 20) <= 0) continue;
      const int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
      if (fd < 0) continue;
      ++connections_;
      workers_.emplace_back([this, fd] {
        handler_(fd, stopping_);
        ::close(fd);
      });
    }
  }

  Handler handler_;
  int listen_fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stopping_{false};
  std::atomic<int> connections_{0};
  std::thread acceptor_;
  std::vector<std::thread> workers_;
};

/// Reads one request head (up to the blank line); empty when the peer closed or stopping was set.
inline std::string read_head(int fd, const std::atomic<bool>& stopping) {
  std::string head;
  char c = 0;
  while (!stopping && head.find("\r\n\r\n") == std::string::npos) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 20) <= 0) continue;
    if (::recv(fd, &c, 1, 0) != 1) return {};
    head += c;
  }
  return head;
}

/// Sends all of data unless the peer goes away or stopping is set; false then.
inline bool send_all(int fd, std::string_view data, const std::atomic<bool>& stopping) {
  while (!data.empty() && !stopping) {
    pollfd p{fd, POLLOUT, 0};
    if (::poll(&p, 1, 20) <= 0) continue;
    const auto sent = ::send(fd, data.data(), data.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
    if (sent < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) continue;
    if (sent <= 0) return false;
    data.remove_prefix(static_cast<std::size_t>(sent));
  }
  return data.empty();
}

inline void idle_until_stopped(const std::atomic<bool>& stopping) {
  while (!stopping)
    std::this_thread::sleep_for(10ms);
}

inline ClientOptions options_for(const std::string& base) {
  ClientOptions options;
  options.base_url = base;
  // Far above what a loopback answer takes on a busy machine: a case about a timeout sets its own.
  options.connect_timeout = 30000ms;
  options.read_timeout = 30000ms;
  options.max_retry_wait = 2000ms;
  return options;
}

/// A port nothing listens on: bound, then closed.
inline int closed_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  auto* any = reinterpret_cast<sockaddr*>(&addr);
  socklen_t size = sizeof addr;
  ::bind(fd, any, size);
  ::getsockname(fd, any, &size);
  ::close(fd);
  return ntohs(addr.sin_port);
}

/// A directory under the system temp dir, removed with everything in it.
class TempDir {
 public:
  TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "entimg-http-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

/// A self-signed certificate made by the openssl CLI for the given subjectAltName.
inline void make_certificate(const std::filesystem::path& dir, const std::string& name,
                             const std::string& san) {
  const std::string command =
      "openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2"
      " -subj /CN=entimg-test -addext subjectAltName=" +
      san + " -keyout '" + (dir / (name + ".key")).string() + "' -out '" + (dir / (name + ".pem")).string() +
      "' >/dev/null 2>&1";
  REQUIRE(std::system(command.c_str()) == 0);
}

/// GET `path` of `base` with that read timeout: the exchange, checked to have ended within kBounded.
inline HttpExchange bounded_get(const std::string& base, std::chrono::milliseconds read_timeout,
                                const std::string& path = "/") {
  auto options = options_for(base);
  options.read_timeout = read_timeout;
  const auto start = Clock::now();
  HttpExchange ex = Client(options).request("GET", path);
  CHECK(Clock::now() - start < kBounded);
  return ex;
}

/// The client ports a server's requests came from: one a connection, so their number counts connections.
class ClientPorts {
 public:
  /// A handler that records the port and answers {}.
  httplib::Server::Handler handler() {
    return [this](const httplib::Request& req, httplib::Response& res) {
      {
        const std::lock_guard lock(mutex_);
        ports_.insert(req.remote_port);
      }
      res.set_content("{}", "application/json");
    };
  }
  std::size_t count() const {
    const std::lock_guard lock(mutex_);
    return ports_.size();
  }
  void clear() {
    const std::lock_guard lock(mutex_);
    ports_.clear();
  }

 private:
  mutable std::mutex mutex_;
  std::set<int> ports_;
};

/// GET `path` `each` times on each of `threads` threads sharing the client; how many were answered 200.
inline int answered_from_threads(Client& client, int threads, int each, const std::string& path = "/") {
  std::vector<std::thread> workers;
  std::atomic<int> ok{0};
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&] {
      for (int i = 0; i < each; ++i)
        ok += client.request("GET", path).status == 200 ? 1 : 0;
    });
  }
  for (auto& w : workers)
    w.join();
  return ok;
}

}  // namespace entimg::contract::test
