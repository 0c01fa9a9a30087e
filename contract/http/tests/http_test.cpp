// The HTTP client (http.cpp): the methods it sends, the headers, and each way an exchange fails
// (refused, unresolved, reset, not HTTP, over the cap), named in its error.
#include <sys/socket.h>

#include <atomic>
#include <cstdlib>
#include <iostream>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <httplib.h>

#include <catch2/catch.hpp>

#include "entimg/contract/http.hpp"
#include "http_test_support.hpp"

using namespace entimg::contract;
using namespace entimg::contract::test;
using namespace std::chrono_literals;
using Catch::Contains;

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
  CHECK(get.failure == FailureKind::none);
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
    CHECK(refused.failure == FailureKind::not_sent);
    CHECK_THAT(refused.error, Contains("only sends GET, HEAD and OPTIONS"));
  }
  CHECK(hits == before);
  CHECK(client.requests_sent() == 3);
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

// cpp-httplib 0.11 reads a body after a 304 that does not say Content-Length: 0, which never comes on a
// kept-alive connection: the client stops at the head, as HTTP says a 304 has no body.
TEST_CASE("a 304 without Content-Length is a whole answer, at once", "[http]") {
  RawServer server([](int fd, const std::atomic<bool>& stopping) {
    read_head(fd, stopping);
    send_all(fd, "HTTP/1.1 304 Not Modified\r\nETag: \"v1\"\r\n\r\n", stopping);
    while (!stopping)
      std::this_thread::sleep_for(10ms);  // kept alive, nothing more
  });
  auto options = options_for(server.url());
  options.read_timeout = 30s;  // a client waiting for a body would end at this timeout, with an error
  const auto ex = Client(options).request("GET", "/", {{"If-None-Match", "\"v1\""}});
  CHECK(ex.status == 304);
  CHECK(ex.failure == FailureKind::none);
  CHECK(ex.error.empty());
  CHECK(ex.header("ETag") == "\"v1\"");
  CHECK(ex.body.empty());
}

TEST_CASE("connection refused is an error exchange naming the origin", "[http]") {
  const int port = closed_port();
  const auto ex = Client(options_for(local(port))).request("GET", "/x");
  CHECK(ex.status == 0);
  CHECK(ex.attempts == 1);
  CHECK(ex.failure == FailureKind::connect_refused);
  CHECK_THAT(ex.error, Contains("connection refused to " + local(port)));
}

TEST_CASE("a host name that does not resolve is an error exchange", "[http]") {
  const auto ex = Client(options_for("http://no-such-host.invalid")).request("GET", "/");
  CHECK(ex.status == 0);
  CHECK(ex.failure == FailureKind::resolve);
  CHECK_THAT(ex.error, Contains("could not resolve host 'no-such-host.invalid'"));
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
    CHECK(ex.failure == FailureKind::reset);
    CHECK_THAT(ex.error, Contains("connection reset by peer"));
  }
  SECTION("closed") {
    RawServer server([](int fd, const std::atomic<bool>& stopping) { read_head(fd, stopping); });
    const auto ex = Client(options_for(server.url())).request("GET", "/");
    CHECK(ex.status == 0);
    CHECK(ex.failure == FailureKind::closed);
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
    CHECK(ex.failure == FailureKind::closed);
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
      CHECK(ex.failure == FailureKind::malformed_answer);
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
      CHECK(ex.failure == FailureKind::body_too_large);
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
    CHECK(ex.failure == FailureKind::none);
    CHECK_FALSE(ex.body_truncated);
    CHECK(ex.body.size() == 1000);
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
