// Latency and faults, CORS and the request log: the planner and answers as units, then through a
// running server (delays, drops, slow bodies, preflights).
#include "entimg/mock/behaviour.hpp"

#include <httplib.h>
#include <zlib.h>

#include <atomic>
#include <chrono>
#include <future>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "entimg/mock/server.hpp"
#include "running_mock.hpp"

using namespace entimg::mock;
using entimg::mock::testing::RunningMock;

namespace {

HttpRequest get(std::vector<std::pair<std::string, std::string>> headers = {}) {
  HttpRequest r;
  r.method = "GET";
  r.target = "/edw/api/entities-images/";
  r.headers = std::move(headers);
  return r;
}

std::string header_of(const HttpResponse& r, const std::string& name) {
  for (const auto& [n, v] : r.headers)
    if (n == name) return v;
  return "";
}

ServerOptions local(FaultOptions faults = {}, CorsOptions cors = {}) {
  ServerOptions o;
  o.host = "127.0.0.1";
  o.port = 0;
  o.threads = 64;
  o.faults = faults;
  o.cors = std::move(cors);
  return o;
}

}  // namespace

TEST_CASE("the planner draws faults at the configured rates, repeatably from the seed", "[faults]") {
  FaultOptions always;
  always.fail_rate = 1;
  always.fail_status = 502;
  CHECK(FaultPlanner(always).plan(get()).fail_status == 502);
  CHECK_FALSE(FaultPlanner(FaultOptions{}).plan(get()).fail_status);

  FaultOptions some;
  some.fail_rate = 0.3;
  some.drop_rate = 0.1;
  some.latency_ms = 100;
  some.jitter_ms = 50;
  some.seed = 42;
  const auto draws = [&some] {
    FaultPlanner planner(some);
    std::vector<std::tuple<bool, bool, long>> out;
    for (int i = 0; i < 2000; ++i) {
      const Plan p = planner.plan(get());
      out.emplace_back(p.drop, p.fail_status.has_value(), static_cast<long>(p.delay.count()));
    }
    return out;
  };
  const auto first = draws();
  CHECK(first == draws());  // the same seed, the same run
  std::size_t drops = 0, fails = 0;
  for (const auto& [drop, fail, delay] : first) {
    drops += drop, fails += fail;
    CHECK(delay >= 100);
    CHECK(delay <= 150);
    CHECK_FALSE((drop && fail));
  }
  CHECK(drops > 140);  // 10 % of 2000, give or take
  CHECK(drops < 260);
  CHECK(fails > 450);  // 30 % of the 90 % not dropped
  CHECK(fails < 630);
}

TEST_CASE("X-Mock-* headers set one request's plan, and bad values are refused with a clear 400",
          "[faults]") {
  FaultPlanner planner(FaultOptions{});
  const Plan p =
      planner.plan(get({{"X-Mock-Latency", "250"}, {"X-Mock-Fail", "429"}, {"X-Mock-Slow-Body", "100"}}));
  CHECK(p.delay == std::chrono::milliseconds(250));
  CHECK(p.fail_status == 429);
  CHECK(p.slow_body_bps == 100);
  CHECK(planner.plan(get({{"X-Mock-Drop", "1"}})).drop);
  FaultOptions failing;
  failing.fail_rate = 1;
  CHECK_FALSE(FaultPlanner(failing).plan(get({{"X-Mock-Fail", "none"}})).fail_status);
  for (const auto& [name, value] :
       std::vector<std::pair<std::string, std::string>>{{"X-Mock-Latency", "-1"},
                                                        {"X-Mock-Latency", "600001"},
                                                        {"X-Mock-Fail", "404"},
                                                        {"X-Mock-Drop", "yes"},
                                                        {"X-Mock-Slow-Body", "fast"}}) {
    const Plan bad = planner.plan(get({{name, value}}));
    REQUIRE(bad.refusal);
    CHECK(bad.refusal->status == 400);
    // The header and the value it was given (a value out of range is named with its unit, not quoted).
    CHECK_THAT(bad.refusal->body, Catch::Contains(name) && (Catch::Contains("'" + value + "'") ||
                                                            Catch::Contains(": " + value + " ms")));
  }
}

TEST_CASE("failure answers look like what fails in front of or inside Django", "[faults]") {
  CHECK_THAT(failure_response(500).body, Catch::Contains("<h1>Server Error (500)</h1>"));
  CHECK_THAT(failure_response(502).body, Catch::Contains("502 Bad Gateway"));
  CHECK(header_of(failure_response(503), "Retry-After") == "1");
  const HttpResponse throttled = failure_response(429);
  CHECK(throttled.content_type == "application/json");
  CHECK(nlohmann::json::parse(throttled.body)["detail"] ==
        "Request was throttled. Expected available in 1 second.");
  CHECK(header_of(throttled, "Retry-After") == "1");
}

TEST_CASE("CORS: allowed origins get django-cors-headers' answers, others nothing", "[cors]") {
  const CorsOptions app{{"http://localhost:3000"}};
  HttpRequest preflight =
      get({{"Origin", "http://localhost:3000"}, {"Access-Control-Request-Method", "GET"}});
  preflight.method = "OPTIONS";
  const auto answer = cors_preflight(app, preflight);
  REQUIRE(answer);
  CHECK(answer->status == 200);
  CHECK(header_of(*answer, "Access-Control-Allow-Origin") == "http://localhost:3000");
  CHECK(header_of(*answer, "Access-Control-Allow-Credentials") == "true");
  CHECK_THAT(header_of(*answer, "Access-Control-Allow-Headers"),
             Catch::Contains("authorization") && Catch::Contains("x-mock-latency"));
  CHECK_FALSE(cors_preflight(app, get({{"Origin", "http://localhost:3000"}})));  // not a preflight
  CHECK_FALSE(cors_preflight(CorsOptions{}, preflight));                         // CORS off

  HttpResponse page;
  page.headers = {{"Vary", "Accept"}};
  add_cors_headers(app, get({{"Origin", "http://localhost:3000"}}), page);
  CHECK(header_of(page, "Access-Control-Allow-Origin") == "http://localhost:3000");
  CHECK(header_of(page, "Vary") == "Accept, Origin");
  CHECK_THAT(header_of(page, "Access-Control-Expose-Headers"), Catch::Contains("Retry-After"));

  HttpResponse other;
  add_cors_headers(app, get({{"Origin", "http://evil.example"}}), other);
  CHECK(other.headers.empty());
  HttpResponse any;
  add_cors_headers(CorsOptions{{"*"}}, get({{"Origin", "http://evil.example"}}), any);
  CHECK(header_of(any, "Access-Control-Allow-Origin") == "*");
  CHECK(header_of(any, "Access-Control-Allow-Credentials").empty());
}

TEST_CASE("the request log: one line a request, text or JSON, control bytes neutralised", "[log]") {
  CHECK(log_line(LogFormat::text, "GET", "/edw/api/entities-images/?offset=24", 200, 5120, 1.25) ==
        "GET /edw/api/entities-images/?offset=24 200 5120 B 1.2 ms");
  CHECK(log_line(LogFormat::text, "GET", "/x\x1b[2J", 404, 10, 0) == "GET /x\\x1b[2J 404 10 B 0.0 ms");
  // Issue 43: C1 controls and bidi overrides too, in both formats.
  const std::string hostile =
      "/a\xc2\x9b"
      "2J\xe2\x80\xae"
      "b\xe2\x81\xa6"
      "c";
  CHECK(log_line(LogFormat::text, "GET", hostile, 404, 10, 0) ==
        "GET /a\\u009b2J\\u202eb\\u2066c 404 10 B 0.0 ms");
  const std::string json_line = log_line(LogFormat::json, "GET", hostile, 404, 10, 0);
  CHECK(json_line.find("\xe2") == std::string::npos);
  CHECK(json_line.find("\xc2") == std::string::npos);
  CHECK(nlohmann::json::parse(json_line)["target"] == hostile);
  const auto json = nlohmann::json::parse(log_line(LogFormat::json, "HEAD", "/a", 0, 0, 2.0));
  CHECK(json["status"] == "dropped");
  CHECK(json["method"] == "HEAD");
}

TEST_CASE("through the server: a delayed request does not hold up others", "[faults][server]") {
  RunningMock mock(local());
  const int port = mock.server.port();
  std::atomic<int> delayed_done{0};
  std::vector<std::future<int>> delayed;
  for (int i = 0; i < 20; ++i) {
    delayed.push_back(std::async(std::launch::async, [port, &delayed_done] {
      httplib::Client client("127.0.0.1", port);
      client.set_read_timeout(30, 0);
      // 5 s: hundreds of times what the fast GET below takes on a busy machine, so the order of the answers
      // shows the fairness, not this machine's speed.
      const auto r = client.Get("/edw/api/entities-images/", {{"X-Mock-Latency", "5000"}});
      ++delayed_done;
      return r ? r->status : 0;
    }));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // let them all be waiting
  httplib::Client fast("127.0.0.1", port);
  const auto r = fast.Get("/edw/api/entities-images/?offset=12");
  REQUIRE(r);
  CHECK(r->status == 200);
  CHECK(delayed_done == 0);  // answered while all 20 delayed ones were still waiting
  for (auto& f : delayed)
    CHECK(f.get() == 200);
}

TEST_CASE("through the server: failures, drops and slow bodies as asked", "[faults][server]") {
  RunningMock mock(local());
  httplib::Client client("127.0.0.1", mock.server.port());
  const auto failed = client.Get("/edw/api/entities-images/", {{"X-Mock-Fail", "503"}});
  REQUIRE(failed);
  CHECK(failed->status == 503);
  CHECK(failed->get_header_value("Retry-After") == "1");

  httplib::Client dropper("127.0.0.1", mock.server.port());
  const auto dropped = dropper.Get("/edw/api/entities-images/", {{"X-Mock-Drop", "1"}});
  CHECK_FALSE(dropped);  // the connection closed with no answer

  const auto started = std::chrono::steady_clock::now();
  const auto slow = client.Get("/edw/api/entities-images/?limit=2", {{"X-Mock-Slow-Body", "4000"}});
  const auto took = std::chrono::steady_clock::now() - started;
  REQUIRE(slow);
  CHECK(slow->status == 200);
  CHECK(nlohmann::json::parse(slow->body)["results"].size() == 2);            // all of it, in the end
  CHECK(took >= std::chrono::milliseconds(100 * (slow->body.size() / 400)));  // 400 bytes each 100 ms

  const auto refused = client.Get("/edw/api/entities-images/", {{"X-Mock-Latency", "soon"}});
  REQUIRE(refused);
  CHECK(refused->status == 400);
}

TEST_CASE("through the server: a preflight and a cross-origin GET", "[cors][server]") {
  RunningMock mock(local({}, CorsOptions{{"http://localhost:3000"}}));
  httplib::Client client("127.0.0.1", mock.server.port());
  const auto preflight =
      client.Options("/edw/api/entities-images/", {{"Origin", "http://localhost:3000"},
                                                   {"Access-Control-Request-Method", "GET"},
                                                   {"Access-Control-Request-Headers", "authorization"}});
  REQUIRE(preflight);
  CHECK(preflight->status == 200);
  CHECK(preflight->get_header_value("Access-Control-Allow-Origin") == "http://localhost:3000");
  const auto page = client.Get("/edw/api/entities-images/", {{"Origin", "http://localhost:3000"}});
  REQUIRE(page);
  CHECK(page->get_header_value("Access-Control-Allow-Origin") == "http://localhost:3000");
  CHECK(page->get_header_value("Vary") == "Accept, Origin");
  const auto plain = client.Get("/edw/api/entities-images/");
  REQUIRE(plain);
  CHECK(plain->get_header_value("Vary") == "Accept");  // no Origin, no CORS headers
  CHECK_FALSE(plain->has_header("Access-Control-Allow-Origin"));
}

namespace {

std::string gunzip(const std::string& data) {
  z_stream z{};
  REQUIRE(inflateInit2(&z, MAX_WBITS + 16) == Z_OK);
  std::string out(1 << 20, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  z.avail_in = static_cast<uInt>(data.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  const int done = inflate(&z, Z_FINISH);
  inflateEnd(&z);
  REQUIRE(done == Z_STREAM_END);
  out.resize(z.total_out);
  return out;
}

}  // namespace

TEST_CASE("gzip is offered by a coding with a q above 0, or by '*'", "[gzip]") {
  for (const char* yes :
       {"gzip", "gzip, br", "br;q=1, GZIP", "gzip;q=0.5", "gzip; q=0.001", "*", "br, *;q=1"})
    CHECK(accepts_gzip(yes));
  for (const char* no : {"", "br", "identity", "x-gzip", "gzip;q=0", "gzip; Q=0.000", "*;q=0", "*, gzip;q=0",
                         "deflate, br;q=0.5"})
    CHECK_FALSE(accepts_gzip(no));
}

TEST_CASE("Vary is patched as Django's patch_vary_headers does", "[gzip]") {
  HttpResponse r;
  patch_vary_headers(r, "Accept-Encoding");
  CHECK(header_of(r, "Vary") == "Accept-Encoding");
  r.headers = {{"Vary", "Accept, Origin"}};
  patch_vary_headers(r, "Accept-Encoding");
  patch_vary_headers(r, "accept-encoding");  // already there, whatever its case
  patch_vary_headers(r, "origin");
  CHECK(header_of(r, "Vary") == "Accept, Origin, Accept-Encoding");
  r.headers = {{"Vary", "*"}};
  patch_vary_headers(r, "Accept-Encoding");
  CHECK(header_of(r, "Vary") == "*");
}

TEST_CASE("the gzip middleware: long answers vary on Accept-Encoding, compressed when asked and shorter",
          "[gzip]") {
  const std::string json = "{\"results\": [" + std::string(400, ' ') + "]}";
  HttpResponse short_answer{200, "application/json", {{"Vary", "Accept"}}, std::string(199, 'x')};
  apply_gzip_middleware(get({{"Accept-Encoding", "gzip"}}), short_answer);
  CHECK(header_of(short_answer, "Vary") == "Accept");  // under 200 bytes: left alone
  HttpResponse not_asked{200, "application/json", {{"Vary", "Accept"}}, json};
  apply_gzip_middleware(get(), not_asked);
  CHECK(header_of(not_asked, "Vary") == "Accept, Accept-Encoding");
  CHECK(not_asked.body == json);
  HttpResponse asked{200, "application/json", {{"Vary", "Accept"}}, json};
  apply_gzip_middleware(get({{"Accept-Encoding", "gzip, deflate"}}), asked);
  CHECK(header_of(asked, "Content-Encoding") == "gzip");
  CHECK(asked.body.size() < json.size());
  CHECK(gunzip(asked.body) == json);
  // Python 3.11's gzip.compress(mtime=0) header: mtime 0, xfl 0, OS 3 (Unix).
  CHECK(asked.body.substr(0, 10) == std::string("\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03", 10));
  std::string noise;
  for (std::uint32_t i = 0, x = 7; i < 400; ++i, x = x * 1103515245u + 12345u)
    noise.push_back(static_cast<char>(x >> 24));
  HttpResponse incompressible{200, "image/png", {}, noise};
  apply_gzip_middleware(get({{"Accept-Encoding", "gzip"}}), incompressible);
  CHECK(incompressible.body == noise);  // not shorter: sent as it is
  CHECK(header_of(incompressible, "Content-Encoding").empty());
}

TEST_CASE("through the server: nothing compressed without --gzip, gzip with it", "[gzip][server]") {
  for (const bool gzip : {false, true}) {
    ServerOptions options = local({});
    options.gzip = gzip;
    RunningMock mock(options);
    httplib::Client client("127.0.0.1", mock.server.port());
    client.set_decompress(false);
    const auto page = client.Get("/edw/api/entities-images/", {{"Accept-Encoding", "gzip, deflate, br"}});
    REQUIRE(page);
    CHECK(page->status == 200);
    if (gzip) {
      CHECK(page->get_header_value("Content-Encoding") == "gzip");
      CHECK(page->get_header_value("Vary") == "Accept, Accept-Encoding");
      CHECK(nlohmann::json::parse(gunzip(page->body))["count"] == 1000);
    } else {
      CHECK_FALSE(page->has_header("Content-Encoding"));  // cpp-httplib would have used br or gzip
      CHECK(page->get_header_value("Vary") == "Accept");
      CHECK(nlohmann::json::parse(page->body)["count"] == 1000);
    }
  }
}
