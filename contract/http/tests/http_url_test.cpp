// URLs as the client reads them (http_url.cpp): origins, the base URL, the request target as sent.
#include <atomic>
#include <mutex>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "entimg/contract/http.hpp"
#include "http_test_support.hpp"

using namespace entimg::contract;
using namespace entimg::contract::test;
using namespace std::chrono_literals;
using Catch::Contains;

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
  CHECK(relative.failure == FailureKind::not_sent);
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
