#include "entimg/contract/http.hpp"

#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <httplib.h>

#include <catch2/catch.hpp>

using namespace entimg::contract;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;
using Catch::Contains;

namespace {

// Generous upper bounds for "did not hang": far above the limits under test, far below a hang.
constexpr auto kBounded = 5s;

std::string local(int port) {
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
std::string read_head(int fd, const std::atomic<bool>& stopping) {
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
bool send_all(int fd, std::string_view data, const std::atomic<bool>& stopping) {
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

void idle_until_stopped(const std::atomic<bool>& stopping) {
  while (!stopping)
    std::this_thread::sleep_for(10ms);
}

ClientOptions options_for(const std::string& base) {
  ClientOptions options;
  options.base_url = base;
  options.connect_timeout = 2000ms;
  options.read_timeout = 2000ms;
  options.max_retry_wait = 2000ms;
  return options;
}

/// A port nothing listens on: bound, then closed.
int closed_port() {
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
void make_certificate(const std::filesystem::path& dir, const std::string& name, const std::string& san) {
  const std::string command =
      "openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2"
      " -subj /CN=entimg-test -addext subjectAltName=" +
      san + " -keyout '" + (dir / (name + ".key")).string() + "' -out '" + (dir / (name + ".pem")).string() +
      "' >/dev/null 2>&1";
  REQUIRE(std::system(command.c_str()) == 0);
}

}  // namespace

TEST_CASE("origin_of normalises scheme, host and default port", "[http]") {
  CHECK(origin_of("HTTP://Example.COM:80/a?b") == "http://example.com");
  CHECK(origin_of("https://example.com:443") == "https://example.com");
  CHECK(origin_of("https://example.com:8443/x") == "https://example.com:8443");
  CHECK(origin_of("http://example.com:443/") == "http://example.com:443");
  CHECK(origin_of("http://127.0.0.1:08000/") == "http://127.0.0.1:8000");
  CHECK(origin_of("http://[::1]:8000/x") == "http://[::1]:8000");
  CHECK(origin_of("http://user:pw@host/") == "http://host");
  CHECK(origin_of("http://host:/") == "http://host");
  CHECK_FALSE(origin_of("ftp://host/"));
  CHECK_FALSE(origin_of("/relative/path"));
  CHECK_FALSE(origin_of("http://"));
  CHECK_FALSE(origin_of("http://host:99999/"));
  CHECK_FALSE(origin_of("http://host:0/"));
  CHECK_FALSE(origin_of("http://ho st/"));
  CHECK_FALSE(origin_of("http://host\r\nX-Injected: 1/"));
}

TEST_CASE("the client takes its base URL apart and refuses bad options", "[http]") {
  Client client(options_for("HTTPS://API.Example.com:443/prefix/"));
  CHECK(client.origin() == "https://api.example.com");
  CHECK(client.base_path() == "/prefix");
  CHECK(Client(options_for("http://h")).base_path().empty());
  CHECK_THROWS_AS(Client(options_for("ftp://h/")), std::invalid_argument);
  CHECK_THROWS_AS(Client(options_for("h:80")), std::invalid_argument);
  auto bad_header = options_for("http://h");
  bad_header.headers = {{"Authorization", "Bearer s3cret\r\nX-Evil: 1"}};
  try {
    Client refused(bad_header);
    FAIL("a header value with a line break was accepted");
  } catch (const std::invalid_argument& e) {
    CHECK_THAT(e.what(), Contains("Authorization") && !Contains("s3cret"));
  }
}

TEST_CASE("HttpExchange looks headers up case-insensitively", "[http]") {
  HttpExchange ex;
  ex.headers = {{"Content-Type", "application/json"}, {"X-Dup", "1"}, {"x-dup", "2"}};
  CHECK(ex.header("content-type") == "application/json");
  CHECK(ex.header("X-DUP") == "1");
  CHECK(ex.header_count("x-Dup") == 2);
  CHECK_FALSE(ex.header("Missing"));
  CHECK(ex.header_count("Missing") == 0);
}

TEST_CASE("GET, HEAD and OPTIONS reach the server, and other methods are never sent", "[http]") {
  TestServer server;
  std::atomic<int> hits{0};
  server->Get("/api/items/", [&](const httplib::Request&, httplib::Response& res) {
    ++hits;
    res.set_header("X-Dup", "a");
    res.headers.emplace("X-Dup", "b");
    res.set_content(R"({"count":1})", "application/json");
  });
  server->Options("/api/items/", [&](const httplib::Request&, httplib::Response& res) {
    ++hits;
    res.set_header("Allow", "GET, HEAD, OPTIONS");
  });
  const int port = server.start();
  Client client(options_for(local(port) + "/api"));

  const auto get = client.request("GET", client.base_path() + "/items/");
  CHECK(get.error.empty());
  CHECK(get.status == 200);
  CHECK(get.method == "GET");
  CHECK(get.url == local(port) + "/api/items/");
  CHECK(get.body == R"({"count":1})");
  CHECK(get.header("content-type") == "application/json");
  CHECK(get.header_count("x-dup") == 2);
  CHECK(get.attempts == 1);
  CHECK_FALSE(get.body_truncated);

  const auto head = client.request("HEAD", local(port) + "/api/items/");
  CHECK(head.status == 200);
  CHECK(head.body.empty());
  CHECK(head.header("Content-Length") == "11");

  const auto options = client.request("OPTIONS", "/api/items/");
  CHECK(options.status == 200);
  CHECK(options.header("Allow") == "GET, HEAD, OPTIONS");

  const int before = hits;
  for (const char* method : {"POST", "PUT", "DELETE", "PATCH", "get"}) {
    const auto refused = client.request(method, "/api/items/");
    CHECK(refused.status == 0);
    CHECK(refused.attempts == 0);
    CHECK_THAT(refused.error, Contains("only sends GET, HEAD and OPTIONS"));
  }
  CHECK(hits == before);
  CHECK(client.requests_sent() == 3);
}

TEST_CASE("configured headers go to the base origin only and never into messages", "[http]") {
  std::mutex mutex;
  std::vector<std::string> seen_by_base;
  std::vector<std::string> seen_by_other;
  TestServer base;
  base->Get("/.*", [&](const httplib::Request& req, httplib::Response& res) {
    const std::lock_guard lock(mutex);
    seen_by_base.push_back(req.get_header_value("Authorization") + "|" + req.get_header_value("X-Api-Key"));
    res.set_content("{}", "application/json");
  });
  TestServer other;
  other->Get("/.*", [&](const httplib::Request& req, httplib::Response& res) {
    const std::lock_guard lock(mutex);
    seen_by_other.push_back(req.get_header_value("Authorization") + "|" + req.get_header_value("X-Api-Key"));
    res.set_content("{}", "application/json");
  });
  const int base_port = base.start();
  const int other_port = other.start();
  auto options = options_for("HTTP://127.0.0.1:" + std::to_string(base_port) + "/");
  options.headers = {{"Authorization", "Bearer s3cret"}, {"X-Api-Key", "k3y"}};
  Client client(options);

  CHECK(client.request("GET", "/a").status == 200);
  CHECK(client.request("GET", "http://127.0.0.1:" + std::to_string(base_port) + "/b").status == 200);
  CHECK(client.request("GET", local(other_port) + "/c").status == 200);
  // Same host and port under another name is another origin.
  CHECK(client.request("GET", "http://localhost:" + std::to_string(base_port) + "/d").status == 200);

  const std::lock_guard lock(mutex);
  REQUIRE(seen_by_base.size() == 3);
  CHECK(seen_by_base[0] == "Bearer s3cret|k3y");
  CHECK(seen_by_base[1] == "Bearer s3cret|k3y");
  CHECK(seen_by_base[2] == "|");
  REQUIRE(seen_by_other.size() == 1);
  CHECK(seen_by_other[0] == "|");

  auto closed = options_for(local(closed_port()));
  closed.headers = options.headers;
  const auto failed = Client(closed).request("GET", "/x");
  CHECK(failed.status == 0);
  CHECK_THAT(failed.error, !Contains("s3cret") && !Contains("k3y"));
}

TEST_CASE("a request's own headers replace the configured ones of the same name, Host among them", "[http]") {
  std::mutex mutex;
  std::vector<std::string> seen;
  TestServer base;
  base->Get("/.*", [&](const httplib::Request& req, httplib::Response& res) {
    const std::lock_guard lock(mutex);
    seen.push_back(req.get_header_value("Host") + "|" + req.get_header_value("Accept-Encoding") + "|" +
                   req.get_header_value("Authorization") + "|" + req.get_header_value("X-Forwarded-Host"));
    res.set_content("{}", "application/json");
  });
  const int port = base.start();
  auto options = options_for(local(port));
  options.headers = {{"Authorization", "Bearer s3cret"}, {"accept-encoding", "gzip"}};
  options.secrets = {"Bearer s3cret"};
  Client client(options);
  const auto plain = client.request("GET", "/a");
  const auto own = client.request(
      "GET", "/b",
      {{"Accept-Encoding", "br"}, {"Host", "alt.example:81"}, {"X-Forwarded-Host", "h.example"}});
  const std::lock_guard lock(mutex);
  REQUIRE(seen.size() == 2);
  CHECK(seen[0] == "127.0.0.1:" + std::to_string(port) + "|gzip|Bearer s3cret|");
  CHECK(seen[1] == "alt.example:81|br|Bearer s3cret|h.example");
  // What each request carried, the secret masked: the checks read Accept-Encoding from there.
  CHECK(plain.request_header("Accept-Encoding") == "gzip");
  CHECK(own.request_header("accept-encoding") == "br");
  CHECK(own.request_header("Host") == "alt.example:81");
  CHECK(own.request_header("Authorization") == std::string(13, '*'));
}

TEST_CASE("the request target is sent as given, with only unsendable bytes encoded", "[http]") {
  std::mutex mutex;
  std::vector<std::string> lines;
  RawServer server([&](int fd, const std::atomic<bool>& stopping) {
    for (;;) {
      const std::string head = read_head(fd, stopping);
      if (head.empty()) return;
      {
        const std::lock_guard lock(mutex);
        lines.push_back(head.substr(0, head.find("\r\n")));
      }
      send_all(fd, "HTTP/1.1 204 No Content\r\n\r\n", stopping);
    }
  });
  Client client(options_for(server.url()));
  CHECK(client.request("GET", "/p?q=a+b&r=%2F&s=x y#frag").status == 204);
  CHECK(client.request("GET", "/p?evil=\r\nX-Injected: 1").status == 204);
  CHECK(client.request("GET", server.url() + "?x=1").status == 204);
  CHECK(client.request("GET", "/caf\xc3\xa9").status == 204);
  const auto relative = client.request("GET", "no-slash");
  CHECK(relative.attempts == 0);
  CHECK_THAT(relative.error, Contains("neither an absolute http(s) URL nor a path"));
  const auto credentials =
      client.request("GET", "http://user:pw@127.0.0.1:" + std::to_string(server.port()) + "/");
  CHECK(credentials.attempts == 0);
  CHECK_THAT(credentials.error + credentials.url, !Contains("pw"));

  const std::lock_guard lock(mutex);
  REQUIRE(lines.size() == 4);
  CHECK(lines[0] == "GET /p?q=a+b&r=%2F&s=x%20y HTTP/1.1");
  CHECK(lines[1] == "GET /p?evil=%0D%0AX-Injected:%201 HTTP/1.1");
  CHECK(lines[2] == "GET /?x=1 HTTP/1.1");
  CHECK(lines[3] == "GET /caf%C3%A9 HTTP/1.1");
}

TEST_CASE("connection refused is an error exchange naming the origin", "[http]") {
  const int port = closed_port();
  const auto ex = Client(options_for(local(port))).request("GET", "/x");
  CHECK(ex.status == 0);
  CHECK(ex.attempts == 1);
  CHECK_THAT(ex.error, Contains("connection refused to " + local(port)));
}

TEST_CASE("a host name that does not resolve is an error exchange", "[http]") {
  const auto ex = Client(options_for("http://no-such-host.invalid")).request("GET", "/");
  CHECK(ex.status == 0);
  CHECK_THAT(ex.error, Contains("could not resolve host 'no-such-host.invalid'"));
}

TEST_CASE("a server that accepts and never answers times out within the read timeout", "[http]") {
  RawServer server([](int, const std::atomic<bool>& stopping) { idle_until_stopped(stopping); });
  auto options = options_for(server.url());
  options.read_timeout = 300ms;
  const auto start = Clock::now();
  const auto ex = Client(options).request("GET", "/slow");
  CHECK(Clock::now() - start < kBounded);
  CHECK(ex.status == 0);
  CHECK(ex.elapsed >= 290ms);
  CHECK_THAT(ex.error, Contains("timed out after 300 ms reading " + server.url() + "/slow"));
}

TEST_CASE("a server that trickles bytes cannot hold a request past the read timeout", "[http]") {
  const auto trickle = [](std::string head) {
    return [head](int fd, const std::atomic<bool>& stopping) {
      read_head(fd, stopping);
      send_all(fd, head, stopping);
      while (!stopping && send_all(fd, "x", stopping))
        std::this_thread::sleep_for(50ms);
    };
  };
  // cpp-httplib restarts its read timeout on every byte; each case would otherwise last forever.
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"in the status line", "HTTP/1.1 200 OK"},
      {"in the headers", "HTTP/1.1 200 OK\r\nX-Slow: "},
      {"in a sized body", "HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n"},
      {"in a body delimited by close", "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n"},
      {"in a chunked body", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nfffff\r\n"},
  };
  for (const auto& [where, head] : cases) {
    SECTION(where) {
      RawServer server(trickle(head));
      auto options = options_for(server.url());
      options.read_timeout = 400ms;
      const auto start = Clock::now();
      const auto ex = Client(options).request("GET", "/");
      CHECK(Clock::now() - start < kBounded);
      CHECK(ex.status == 0);
      CHECK(ex.body.empty());
      CHECK_THAT(ex.error, Contains("timed out after 400 ms reading"));
    }
  }
}

TEST_CASE("a connection reset or closed without an answer is a clear error", "[http]") {
  SECTION("reset") {
    RawServer server([](int fd, const std::atomic<bool>& stopping) {
      read_head(fd, stopping);
      const linger abort_on_close{1, 0};
      ::setsockopt(fd, SOL_SOCKET, SO_LINGER, &abort_on_close, sizeof abort_on_close);
    });
    const auto ex = Client(options_for(server.url())).request("GET", "/");
    CHECK(ex.status == 0);
    CHECK_THAT(ex.error, Contains("connection reset by peer"));
  }
  SECTION("closed") {
    RawServer server([](int fd, const std::atomic<bool>& stopping) { read_head(fd, stopping); });
    const auto ex = Client(options_for(server.url())).request("GET", "/");
    CHECK(ex.status == 0);
    CHECK_THAT(ex.error, Contains("closed the connection without answering " + server.url() + "/"));
  }
  SECTION("cut in the middle of a body") {
    RawServer server([](int fd, const std::atomic<bool>& stopping) {
      read_head(fd, stopping);
      send_all(fd, "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nonly part", stopping);
    });
    const auto ex = Client(options_for(server.url())).request("GET", "/");
    CHECK(ex.status == 0);
    CHECK(ex.body.empty());
    CHECK_THAT(ex.error, Contains("closed before the body"));
  }
}

TEST_CASE("an answer that is not HTTP is a clear error", "[http]") {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"text", "this is not http\r\n\r\n"},
      {"binary", std::string("\x16\x03\x01\x00\xff\x00\x00", 7) + "\r\n"},
      {"no line end", "SSH-2.0-OpenSSH_9.2"},
      {"bad status", "HTTP/1.1 2000 OK\r\n\r\n"},
  };
  for (const auto& [name, answer] : cases) {
    SECTION(name) {
      RawServer server([answer](int fd, const std::atomic<bool>& stopping) {
        read_head(fd, stopping);
        send_all(fd, answer, stopping);
      });
      const auto ex = Client(options_for(server.url())).request("GET", "/");
      CHECK(ex.status == 0);
      CHECK_THAT(ex.error, Contains("not a valid HTTP response from " + server.url() + "/"));
    }
  }
}

TEST_CASE("a body over the cap is cut, not buffered", "[http]") {
  const auto endless = [](std::string head) {
    return [head](int fd, const std::atomic<bool>& stopping) {
      read_head(fd, stopping);
      send_all(fd, head, stopping);
      const std::string block(64 * 1024, 'z');
      while (!stopping && send_all(fd, block, stopping)) {
      }
    };
  };
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"sized", "HTTP/1.1 200 OK\r\nContent-Length: 100000000000\r\n\r\n"},
      {"delimited by close", "HTTP/1.1 200 OK\r\n\r\n"},
  };
  for (const auto& [name, head] : cases) {
    SECTION(name) {
      RawServer server(endless(head));
      auto options = options_for(server.url());
      options.max_body_bytes = 1 << 20;
      const auto start = Clock::now();
      const auto ex = Client(options).request("GET", "/big");
      CHECK(Clock::now() - start < kBounded);
      CHECK(ex.status == 200);
      CHECK(ex.body_truncated);
      CHECK(ex.body.size() == std::size_t{1} << 20);
      CHECK_THAT(ex.error, Contains("response body over 1048576 bytes, cut"));
    }
  }
  SECTION("at the cap exactly is whole") {
    TestServer server;
    server->Get("/", [](const httplib::Request&, httplib::Response& res) {
      res.set_content(std::string(1000, 'a'), "text/plain");
    });
    auto options = options_for(local(server.start()));
    options.max_body_bytes = 1000;
    const auto ex = Client(options).request("GET", "/");
    CHECK(ex.status == 200);
    CHECK(ex.error.empty());
    CHECK_FALSE(ex.body_truncated);
    CHECK(ex.body.size() == 1000);
  }
}

TEST_CASE("endless response headers are cut", "[http]") {
  RawServer server([](int fd, const std::atomic<bool>& stopping) {
    read_head(fd, stopping);
    send_all(fd, "HTTP/1.1 200 OK\r\n", stopping);
    const std::string line = "X-Junk: " + std::string(1000, 'j') + "\r\n";
    std::string block;
    for (int i = 0; i < 64; ++i)
      block += line;
    while (!stopping && send_all(fd, block, stopping)) {
    }
  });
  const auto start = Clock::now();
  const auto ex = Client(options_for(server.url())).request("GET", "/");
  CHECK(Clock::now() - start < kBounded);
  CHECK(ex.status == 0);
  CHECK_THAT(ex.error, Contains("response headers over"));
}

TEST_CASE("overlong status and header lines are an error or a cut, never a crash", "[http]") {
  // cpp-httplib matches the status line with a recursive std::regex: ~320 bytes of stack a character.
  const auto burst = [](std::string answer) {
    return [answer](int fd, const std::atomic<bool>& stopping) {
      read_head(fd, stopping);
      send_all(fd, answer, stopping);
      idle_until_stopped(stopping);
    };
  };
  const auto trickle = [](std::string head, std::size_t size, std::string tail) {
    return [=](int fd, const std::atomic<bool>& stopping) {
      read_head(fd, stopping);
      send_all(fd, head, stopping);
      const std::string chunk(4096, 'a');
      for (std::size_t sent = 0; sent < size && !stopping; sent += chunk.size()) {
        if (!send_all(fd, chunk, stopping)) return;
        std::this_thread::sleep_for(1ms);
      }
      send_all(fd, tail, stopping);
      idle_until_stopped(stopping);
    };
  };
  const std::string huge(5'000'000, 'a');
  const auto check = [](const RawServer& server, std::string_view expected) {
    const auto start = Clock::now();
    const auto ex = Client(options_for(server.url())).request("GET", "/");
    CHECK(Clock::now() - start < kBounded);
    CHECK(ex.status == 0);
    CHECK(ex.body.empty());
    INFO(ex.error);
    CHECK((ex.error.find(expected) != std::string::npos ||
           ex.error.find("response headers over") != std::string::npos));
  };
  SECTION("a status line of 60,000 characters is refused") {
    RawServer server(burst("HTTP/1.1 200 " + std::string(60'000, 'a') + "\r\nContent-Length: 0\r\n\r\n"));
    check(server, "the status line from " + server.url() + "/ is over 8192 bytes");
  }
  SECTION("a status line of 5,000,000 characters in one burst") {
    RawServer server(burst("HTTP/1.1 200 " + huge + "\r\nContent-Length: 0\r\n\r\n"));
    check(server, "the status line from");
  }
  SECTION("a status line of 5,000,000 characters trickled") {
    RawServer server(trickle("HTTP/1.1 200 ", huge.size(), "\r\nContent-Length: 0\r\n\r\n"));
    check(server, "the status line from");
  }
  SECTION("a header line of 5,000,000 characters") {
    RawServer server(burst("HTTP/1.1 200 OK\r\nX-Long: " + huge + "\r\nContent-Length: 0\r\n\r\n"));
    check(server, "not a valid HTTP response");
  }
}

// Not run by default: how long a status line still gets through whole before the watchdog's cut.
TEST_CASE("longest status line that completes", "[.][http-line]") {
  for (const std::size_t size : {300'000U, 500'000U, 800'000U, 1'200'000U, 2'000'000U, 5'000'000U}) {
    int whole = 0;
    for (int i = 0; i < 20; ++i) {
      const std::string answer = "HTTP/1.1 200 " + std::string(size, 'a') + "\r\nContent-Length: 0\r\n\r\n";
      RawServer server([&](int fd, const std::atomic<bool>& stopping) {
        read_head(fd, stopping);
        send_all(fd, answer, stopping);
        idle_until_stopped(stopping);
      });
      whole += Client(options_for(server.url())).request("GET", "/").error.find("status line") !=
               std::string::npos;
    }
    std::cout << size << " characters: " << whole << " of 20 complete\n";
  }
}

TEST_CASE("redirects are returned, not followed", "[http]") {
  TestServer server;
  std::atomic<int> hits{0};
  server->Get("/loop", [&](const httplib::Request&, httplib::Response& res) {
    ++hits;
    res.set_redirect("/loop", 301);
  });
  const int port = server.start();
  const auto ex = Client(options_for(local(port))).request("GET", "/loop");
  CHECK(ex.status == 301);
  CHECK(ex.header("Location") == "/loop");
  CHECK(ex.attempts == 1);
  CHECK(hits == 1);
}

TEST_CASE("429 and 503 are retried as Retry-After says, within limits", "[http]") {
  TestServer server;
  std::atomic<int> hits{0};
  server->Get("/once", [&](const httplib::Request&, httplib::Response& res) {
    if (++hits == 1) {
      res.status = 429;
      res.set_header("Retry-After", "1");
      return;
    }
    res.set_content("{}", "application/json");
  });
  server->Get("/dated", [&](const httplib::Request&, httplib::Response& res) {
    if (++hits % 2 == 1) {
      res.status = 503;
      // Two seconds ahead at one-second resolution: a wait of 1 to 2 s.
      const std::time_t when = std::time(nullptr) + 2;
      std::tm parts{};
      ::gmtime_r(&when, &parts);
      std::array<char, 64> text{};
      std::strftime(text.data(), text.size(), "%a, %d %b %Y %H:%M:%S GMT", &parts);
      res.set_header("Retry-After", text.data());
      return;
    }
    res.set_content("{}", "application/json");
  });
  server->Get("/forever", [&](const httplib::Request&, httplib::Response& res) {
    ++hits;
    res.status = 503;
  });
  server->Get("/long", [&](const httplib::Request&, httplib::Response& res) {
    ++hits;
    res.status = 429;
    res.set_header("Retry-After", "3600");
  });
  const int port = server.start();

  SECTION("Retry-After in seconds") {
    const auto ex = Client(options_for(local(port))).request("GET", "/once");
    CHECK(ex.status == 200);
    CHECK(ex.attempts == 2);
    CHECK(ex.elapsed >= 950ms);
    CHECK(hits == 2);
  }
  SECTION("Retry-After as an HTTP-date") {
    const auto ex = Client(options_for(local(port))).request("GET", "/dated");
    CHECK(ex.status == 200);
    CHECK(ex.attempts == 2);
    CHECK(ex.elapsed >= 900ms);
  }
  SECTION("a server that keeps failing is given up on after the retries") {
    auto options = options_for(local(port));
    options.retries = 2;
    options.max_retry_wait = 100ms;
    Client client(options);
    const auto ex = client.request("GET", "/forever");
    CHECK(ex.status == 503);
    CHECK(ex.error.empty());
    CHECK(ex.attempts == 3);
    CHECK(ex.elapsed >= 190ms);  // two backoff waits, each capped at 100 ms
    CHECK(hits == 3);
    CHECK(client.requests_sent() == 3);
  }
  SECTION("Retry-After is capped at max_retry_wait") {
    auto options = options_for(local(port));
    options.retries = 1;
    options.max_retry_wait = 200ms;
    const auto ex = Client(options).request("GET", "/long");
    CHECK(ex.status == 429);
    CHECK(ex.attempts == 2);
    CHECK(ex.elapsed >= 190ms);
    CHECK(ex.elapsed < kBounded);
  }
  SECTION("a wait past the run deadline is not taken") {
    auto options = options_for(local(port));
    options.max_retry_wait = 30000ms;
    options.deadline = 4000ms;
    const auto ex = Client(options).request("GET", "/long");
    CHECK(ex.status == 429);
    CHECK(ex.attempts == 1);
    CHECK(ex.elapsed < 4000ms);
  }
  SECTION("no retries when retries is 0") {
    auto options = options_for(local(port));
    options.retries = 0;
    const auto ex = Client(options).request("GET", "/forever");
    CHECK(ex.status == 503);
    CHECK(ex.attempts == 1);
  }
}

TEST_CASE("the rate limit spaces requests across threads", "[http]") {
  TestServer server;
  server->Get("/", [](const httplib::Request&, httplib::Response& res) {
    res.set_content("{}", "application/json");
  });
  auto options = options_for(local(server.start()));
  options.rate = 20;
  Client client(options);
  const auto start = Clock::now();
  std::vector<std::thread> threads;
  std::atomic<int> ok{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 4; ++i)
        ok += client.request("GET", "/").status == 200 ? 1 : 0;
    });
  }
  for (auto& t : threads)
    t.join();
  CHECK(ok == 16);
  // 16 requests at 20 per second: at least 15 gaps of 50 ms. A lower bound only: machines are noisy.
  CHECK(Clock::now() - start >= 750ms);
}

TEST_CASE("the request budget and the run deadline stop requests without network", "[http]") {
  TestServer server;
  std::atomic<int> hits{0};
  server->Get("/", [&](const httplib::Request&, httplib::Response& res) {
    ++hits;
    res.set_content("{}", "application/json");
  });
  const int port = server.start();
  SECTION("max_requests") {
    auto options = options_for(local(port));
    options.max_requests = 3;
    Client client(options);
    for (int i = 0; i < 3; ++i)
      CHECK(client.request("GET", "/").status == 200);
    CHECK_FALSE(client.budget_left());
    const auto refused = client.request("GET", "/");
    CHECK(refused.status == 0);
    CHECK(refused.attempts == 0);
    CHECK_THAT(refused.error, Contains("request budget of 3 requests is used up"));
    CHECK(hits == 3);
    CHECK(client.requests_sent() == 3);
  }
  SECTION("deadline") {
    auto options = options_for(local(port));
    options.deadline = 1000ms;
    Client client(options);
    CHECK(client.budget_left());
    CHECK(client.request("GET", "/").status == 200);
    std::this_thread::sleep_for(1100ms);
    CHECK_FALSE(client.budget_left());
    const auto refused = client.request("GET", "/");
    CHECK(refused.status == 0);
    CHECK(refused.attempts == 0);
    CHECK_THAT(refused.error, Contains("run deadline of 1000 ms is used up"));
    CHECK(hits == 1);
  }
  SECTION("the deadline cuts a request in flight") {
    RawServer silent([](int, const std::atomic<bool>& stopping) { idle_until_stopped(stopping); });
    auto options = options_for(silent.url());
    options.read_timeout = 10000ms;
    options.deadline = 300ms;
    const auto start = Clock::now();
    const auto ex = Client(options).request("GET", "/");
    CHECK(Clock::now() - start < kBounded);
    CHECK_THAT(ex.error, Contains("run deadline of 300 ms was reached while reading"));
  }
}

TEST_CASE("keep-alive connections are reused, also across threads", "[http]") {
  TestServer server;
  std::mutex mutex;
  std::set<int> ports;
  server->Get("/", [&](const httplib::Request& req, httplib::Response& res) {
    {
      const std::lock_guard lock(mutex);
      ports.insert(req.remote_port);
    }
    res.set_content("{}", "application/json");
  });
  Client client(options_for(local(server.start())));
  for (int i = 0; i < 20; ++i)
    REQUIRE(client.request("GET", "/").status == 200);
  {
    const std::lock_guard lock(mutex);
    CHECK(ports.size() == 1);
    ports.clear();
  }
  std::vector<std::thread> threads;
  std::atomic<int> ok{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 50; ++i)
        ok += client.request("GET", "/").status == 200 ? 1 : 0;
    });
  }
  for (auto& t : threads)
    t.join();
  CHECK(ok == 200);
  CHECK(client.requests_sent() == 220);
  const std::lock_guard lock(mutex);
  CHECK(ports.size() <= 4);
}

TEST_CASE("a keep-alive connection closed by the server is replaced without an error", "[http]") {
  RawServer server([](int fd, const std::atomic<bool>& stopping) {
    // Answers one request, then drops the connection when the next one arrives.
    if (read_head(fd, stopping).empty()) return;
    send_all(fd, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", stopping);
    read_head(fd, stopping);
  });
  Client client(options_for(server.url()));
  CHECK(client.request("GET", "/1").status == 200);
  const auto second = client.request("GET", "/2");
  CAPTURE(second.error);
  CHECK(second.error.empty());
  CHECK(second.status == 200);
  CHECK(second.attempts == 1);
  CHECK(server.connections() == 2);
  CHECK(client.requests_sent() == 3);
}

TEST_CASE("a connection with stray bytes after an answer is not reused", "[http]") {
  RawServer server([](int fd, const std::atomic<bool>& stopping) {
    for (;;) {
      const std::string head = read_head(fd, stopping);
      if (head.empty()) return;
      if (!head.starts_with("HEAD")) {
        send_all(fd, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", stopping);
        continue;
      }
      // A broken server: HEAD answered with a body, sent late enough to stay in the socket, where it
      // would pass for the start of the next answer.
      send_all(fd, "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n", stopping);
      std::this_thread::sleep_for(20ms);
      send_all(fd, "hello", stopping);
    }
  });
  Client client(options_for(server.url()));
  const auto head = client.request("HEAD", "/");
  CHECK(head.status == 200);
  CHECK(head.body.empty());
  std::this_thread::sleep_for(50ms);  // lets the stray body arrive
  const auto get = client.request("GET", "/");
  CAPTURE(get.error);
  CHECK(get.status == 200);
  CHECK(get.body == "ok");
  CHECK(server.connections() == 2);
}

TEST_CASE("TLS: verified against the system or a given CA, or not at all when insecure", "[http]") {
  TempDir dir;
  make_certificate(dir.path(), "ip", "IP:127.0.0.1");
  make_certificate(dir.path(), "other", "DNS:other.example");
  TestServer<httplib::SSLServer> server((dir.path() / "ip.pem").c_str(), (dir.path() / "ip.key").c_str());
  REQUIRE(server->is_valid());
  std::mutex mutex;
  std::set<int> ports;
  server->Get("/", [&](const httplib::Request& req, httplib::Response& res) {
    {
      const std::lock_guard lock(mutex);
      ports.insert(req.remote_port);
    }
    res.set_content("{}", "application/json");
  });
  const int port = server.start();
  const std::string base = "https://127.0.0.1:" + std::to_string(port);

  SECTION("self-signed is refused by default") {
    const auto ex = Client(options_for(base)).request("GET", "/");
    CHECK(ex.status == 0);
    CHECK_THAT(ex.error,
               Contains("TLS handshake failed: certificate verify failed (self-signed certificate)"));
  }
  SECTION("accepted with its CA, over one kept-alive connection") {
    auto options = options_for(base);
    options.cacert = dir.path() / "ip.pem";
    Client client(options);
    for (int i = 0; i < 5; ++i) {
      const auto ex = client.request("GET", "/");
      CHECK(ex.error.empty());
      CHECK(ex.status == 200);
    }
    const std::lock_guard lock(mutex);
    CHECK(ports.size() == 1);
  }
  SECTION("accepted when insecure") {
    auto options = options_for(base);
    options.insecure = true;
    const auto ex = Client(options).request("GET", "/");
    CHECK(ex.error.empty());
    CHECK(ex.status == 200);
  }
  SECTION("a certificate for another name is refused") {
    TestServer<httplib::SSLServer> other((dir.path() / "other.pem").c_str(),
                                         (dir.path() / "other.key").c_str());
    other->Get("/",
               [](const httplib::Request&, httplib::Response& res) { res.set_content("{}", "text/plain"); });
    auto options = options_for("https://127.0.0.1:" + std::to_string(other.start()));
    options.cacert = dir.path() / "other.pem";
    const auto ex = Client(options).request("GET", "/");
    CHECK(ex.status == 0);
    CHECK_THAT(ex.error, Contains("is not valid for host '127.0.0.1'"));
  }
  SECTION("the given CA is trusted besides the system's") {
    auto options = options_for(base);
    options.cacert = dir.path() / "other.pem";
    // OpenSSL reads its default CA file from SSL_CERT_FILE: here the "system" trusts the server.
    ::setenv("SSL_CERT_FILE", (dir.path() / "ip.pem").c_str(), 1);
    const auto trusted_by_system = Client(options).request("GET", "/");
    ::unsetenv("SSL_CERT_FILE");
    CHECK(trusted_by_system.error.empty());
    CHECK(trusted_by_system.status == 200);
    CHECK_THAT(Client(options).request("GET", "/").error, Contains("certificate verify failed"));
  }
  SECTION("a CA bundle that cannot be read is refused at once") {
    auto options = options_for(base);
    options.cacert = dir.path() / "missing.pem";
    CHECK_THROWS_WITH(Client(options), Contains("could not load the CA bundle"));
    std::ofstream(dir.path() / "garbage.pem") << "not a certificate\n";
    options.cacert = dir.path() / "garbage.pem";
    CHECK_THROWS_WITH(Client(options), Contains("could not load the CA bundle"));
  }
}

TEST_CASE("TLS to a plain-HTTP or silent port fails clearly and in bounded time", "[http]") {
  SECTION("plain HTTP") {
    TestServer server;
    server->Get("/",
                [](const httplib::Request&, httplib::Response& res) { res.set_content("{}", "text/plain"); });
    const auto ex =
        Client(options_for("https://127.0.0.1:" + std::to_string(server.start()))).request("GET", "/");
    CHECK(ex.status == 0);
    CHECK_THAT(ex.error,
               Contains("TLS handshake failed with https://127.0.0.1:") && Contains("plain-HTTP port"));
  }
  SECTION("silent") {
    RawServer server([](int, const std::atomic<bool>& stopping) { idle_until_stopped(stopping); });
    auto options = options_for("https://127.0.0.1:" + std::to_string(server.port()));
    options.connect_timeout = 10000ms;
    options.read_timeout = 300ms;
    const auto start = Clock::now();
    const auto ex = Client(options).request("GET", "/");
    CHECK(Clock::now() - start < kBounded);
    CHECK(ex.status == 0);
    CHECK_THAT(ex.error, Contains("timed out after 300 ms"));
  }
}

// Not run by default: prints requests per second on loopback (ENTIMG_BENCH_URL to aim elsewhere).
TEST_CASE("loopback throughput", "[.][http-bench]") {
  TestServer server;
  const std::string page(4000, 'p');
  server->Get("/.*", [&](const httplib::Request&, httplib::Response& res) {
    res.set_content(page, "application/json");
  });
  const char* env = std::getenv("ENTIMG_BENCH_URL");
  const std::string url = env != nullptr ? env : local(server.start()) + "/edw/api/entities-images/";
  for (const int threads : {1, 4}) {
    Client client(options_for(url));
    constexpr int kEach = 2000;
    std::atomic<int> ok{0};
    const auto start = Clock::now();
    std::vector<std::thread> workers;
    for (int t = 0; t < threads; ++t) {
      workers.emplace_back([&, t] {
        for (int i = 0; i < kEach; ++i) {
          ok +=
              client.request("GET", url + "?offset=" + std::to_string((t * kEach + i) % 1000 * 12)).status ==
              200;
        }
      });
    }
    for (auto& w : workers)
      w.join();
    const std::chrono::duration<double> took = Clock::now() - start;
    std::cout << threads << " thread(s): " << ok << " requests in " << took.count()
              << " s = " << static_cast<double>(ok) / took.count() << " requests/s\n";
  }
}
