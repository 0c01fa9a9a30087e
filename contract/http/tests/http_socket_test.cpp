// Sockets and TLS (http_socket.cpp): certificates verified against the system or a given CA.
#include <atomic>
#include <fstream>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>

#include <httplib.h>

#include <catch2/catch.hpp>

#include "entimg/contract/http.hpp"
#include "http_detail.hpp"
#include "http_test_support.hpp"

using namespace entimg::contract;
using namespace entimg::contract::test;
using namespace std::chrono_literals;
using Catch::Contains;

TEST_CASE("TLS: verified against the system or a given CA, or not at all when insecure", "[http]") {
  TempDir dir;
  make_certificate(dir.path(), "ip", "IP:127.0.0.1");
  make_certificate(dir.path(), "other", "DNS:other.example");
  TestServer<httplib::SSLServer> server((dir.path() / "ip.pem").c_str(), (dir.path() / "ip.key").c_str());
  REQUIRE(server->is_valid());
  ClientPorts ports;
  server->Get("/", ports.handler());
  const int port = server.start();
  const std::string base = "https://127.0.0.1:" + std::to_string(port);

  SECTION("self-signed is refused by default") {
    const auto ex = Client(options_for(base)).request("GET", "/");
    CHECK(ex.status == 0);
    CHECK(ex.failure == FailureKind::tls);
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
    CHECK(ports.count() == 1);
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
    CHECK(ex.failure == FailureKind::tls);
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

TEST_CASE("run_on_big_stack: a task already on a big stack runs a nested one right there", "[http]") {
  std::thread::id outer, inner;
  entimg::contract::detail::run_on_big_stack([&] {
    outer = std::this_thread::get_id();
    entimg::contract::detail::run_on_big_stack([&] { inner = std::this_thread::get_id(); });
  });
  CHECK(outer != std::this_thread::get_id());
  CHECK(inner == outer);  // no hand-over to a second worker
  // What the nested task throws reaches the first caller, and the worker stays usable.
  CHECK_THROWS_WITH(entimg::contract::detail::run_on_big_stack([] {
                      entimg::contract::detail::run_on_big_stack([] { throw std::runtime_error("nested"); });
                    }),
                    "nested");
  bool ran = false;
  entimg::contract::detail::run_on_big_stack([&] { ran = true; });
  CHECK(ran);
}
