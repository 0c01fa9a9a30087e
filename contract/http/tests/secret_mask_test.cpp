// Secrets (secret_mask.cpp): configured headers reach the base origin only, and no message shows them.
#include <mutex>
#include <string>
#include <vector>

#include <httplib.h>

#include <catch2/catch.hpp>

#include "entimg/contract/http.hpp"
#include "http_test_support.hpp"

using namespace entimg::contract;
using namespace entimg::contract::test;
using namespace std::chrono_literals;
using Catch::Contains;

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
