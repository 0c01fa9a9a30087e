// The pool (http_pool.cpp): keep-alive connections reused, replaced when closed, dropped when dirty.
#include <atomic>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <httplib.h>

#include <catch2/catch.hpp>

#include "entimg/contract/http.hpp"
#include "http_test_support.hpp"

using namespace entimg::contract;
using namespace entimg::contract::test;
using namespace std::chrono_literals;
using Catch::Contains;

TEST_CASE("keep-alive connections are reused, also across threads", "[http]") {
  TestServer server;
  ClientPorts ports;
  server->Get("/", ports.handler());
  Client client(options_for(local(server.start())));
  for (int i = 0; i < 20; ++i)
    REQUIRE(client.request("GET", "/").status == 200);
  CHECK(ports.count() == 1);
  ports.clear();
  CHECK(answered_from_threads(client, 4, 50) == 200);
  CHECK(client.requests_sent() == 220);
  CHECK(ports.count() <= 4);
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
