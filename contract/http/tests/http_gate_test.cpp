// The gate (http_gate.cpp): retries as Retry-After says, the rate, the request budget, the run deadline.
#include <array>
#include <atomic>
#include <ctime>
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
    // Retry-After: 3600 asks for an hour, past the 90 s deadline: a client that took the wait (or slept
    // until the deadline) would end after 90 s; one that does not ends at once. 60 s tells them apart on
    // any machine.
    auto options = options_for(local(port));
    options.max_retry_wait = std::chrono::milliseconds(std::chrono::hours(2));
    options.deadline = 90s;
    const auto ex = Client(options).request("GET", "/long");
    CHECK(ex.status == 429);
    CHECK(ex.attempts == 1);
    CHECK(ex.elapsed < 60s);
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
  CHECK(answered_from_threads(client, 4, 4) == 16);
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
    CHECK(refused.failure == FailureKind::budget);
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
    CHECK(refused.failure == FailureKind::budget);
    CHECK_THAT(refused.error, Contains("run deadline of 1000 ms is used up"));
    CHECK(hits == 1);
  }
  SECTION("the deadline cuts a request in flight") {
    RawServer silent([](int, const std::atomic<bool>& stopping) { idle_until_stopped(stopping); });
    auto options = options_for(silent.url());
    options.read_timeout = 100s;  // far above the deadline: the failure kind says which one cut the request
    options.deadline = 300ms;
    const auto start = Clock::now();
    const auto ex = Client(options).request("GET", "/");
    CHECK(Clock::now() - start < kBounded);
    CHECK(ex.failure == FailureKind::deadline);
    CHECK_THAT(ex.error, Contains("run deadline of 300 ms was reached while reading"));
  }
}
