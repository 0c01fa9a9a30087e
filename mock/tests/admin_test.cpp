// The admin routes (--admin) through a running mock: the journal and its filters, reset, faults at run
// time, a port of their own, and clear 400s for what they cannot use.
#include <httplib.h>

#include <atomic>
#include <chrono>
#include <thread>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "entimg/common/snapshot.hpp"
#include "entimg/mock/server.hpp"
#include "journal.hpp"

using namespace entimg::mock;
using nlohmann::json;

namespace {

struct AdminMock {
  explicit AdminMock(int admin_port = -1) : server(service(), options(admin_port)) { server.start(); }
  static std::shared_ptr<Service> service() {
    return std::make_shared<Service>(make_generated_dataset(100, 1), User{"alice", "s3cret"});
  }
  static ServerOptions options(int admin_port) {
    ServerOptions o = listen_on("127.0.0.1", 0, 2);
    o.admin = true;
    o.admin_port = admin_port;
    return o;
  }
  MockServer server;
};

json get_json(httplib::Client& client, const std::string& path) {
  const auto r = client.Get(path.c_str());
  REQUIRE(r);
  INFO(path << " -> " << r->status << " " << r->body);
  REQUIRE(r->status == 200);
  return json::parse(r->body);
}

}  // namespace

TEST_CASE("the journal lists what the app asked, filtered, and forgets on DELETE", "[admin]") {
  AdminMock mock;
  httplib::Client client("127.0.0.1", mock.server.port());
  REQUIRE(client.Get("/edw/api/entities-images/?limit=12&offset=24"));
  REQUIRE(client.Get("/edw/api/entities-images/?limit=12&offset=36"));
  REQUIRE(client.Head("/edw/api/entities-images/"));
  const json all = get_json(client, "/__mock/requests");
  REQUIRE(all["count"] == 3);  // the admin requests themselves are not journaled
  CHECK(all["requests"][0]["method"] == "GET");
  CHECK(all["requests"][0]["path"] == "/edw/api/entities-images/");
  CHECK(all["requests"][0]["query"]["offset"] == json::array({"24"}));
  CHECK(all["requests"][0]["status"] == 200);
  CHECK(get_json(client, "/__mock/requests/count?query.offset=24&query.limit=12")["count"] == 1);
  CHECK(get_json(client, "/__mock/requests/count?method=head")["count"] == 1);
  CHECK(get_json(client, "/__mock/requests/count?query.offset")["count"] == 2);
  CHECK(get_json(client, "/__mock/requests/count?path=/other/")["count"] == 0);
  const std::uint64_t first = all["requests"][0]["seq"];
  CHECK(get_json(client, "/__mock/requests?since=" + std::to_string(first))["count"] == 2);
  CHECK(get_json(client, "/__mock/requests?limit=1")["count"] == 1);
  // after= and before= take the times the journal writes, or unix milliseconds.
  const std::string first_time = all["requests"][0]["time"];
  CHECK(get_json(client, "/__mock/requests/count?after=" + first_time)["count"] == 3);
  CHECK(get_json(client, "/__mock/requests/count?before=" + first_time)["count"] == 0);
  CHECK(get_json(client, "/__mock/requests/count?after=0")["count"] == 3);
  CHECK(get_json(client, "/__mock/requests/count?after=4102444800000")["count"] == 0);  // 2100
  for (const char* bad :
       {"/__mock/requests?since=abc", "/__mock/requests?colour=red", "/__mock/requests/count?limit=-1"}) {
    const auto r = client.Get(bad);
    REQUIRE(r);
    CHECK(r->status == 400);
    CHECK(json::parse(r->body)["detail"].get<std::string>().find('\'') != std::string::npos);
  }
  REQUIRE(client.Delete("/__mock/requests"));
  CHECK(get_json(client, "/__mock/requests")["count"] == 0);
  const auto wrong = client.Post("/__mock/requests", "", "text/plain");
  REQUIRE(wrong);
  CHECK(wrong->status == 405);
  CHECK(wrong->get_header_value("Allow") == "GET, DELETE");
  CHECK(client.Get("/__mock/nothing")->status == 404);
}

TEST_CASE("faults change at run time, and reset takes uploads, journal and faults back to the start",
          "[admin]") {
  AdminMock mock;
  httplib::Client client("127.0.0.1", mock.server.port());
  client.set_basic_auth("alice", "s3cret");
  const auto put =
      client.Put("/__mock/faults", R"({"fail_rate": 1, "fail_status": 503})", "application/json");
  REQUIRE(put);
  CHECK(put->status == 200);
  CHECK(client.Get("/edw/api/entities-images/")->status == 503);
  for (const char* bad : {R"({"fail_rate": 2})", R"({"fail_status": 404})", R"({"latency_ms": 999999999})",
                          R"({"colour": 1})", "[1]", "{bad"}) {
    const auto r = client.Put("/__mock/faults", bad, "application/json");
    REQUIRE(r);
    INFO(bad << " -> " << r->body);
    CHECK(r->status == 400);
  }
  CHECK(get_json(client, "/__mock/faults")["fail_rate"] == 1);  // a refused PUT changes nothing

  const auto created =
      client.Post("/edw/api/entities-images/",
                  httplib::MultipartFormDataItems{{"image", "\x89PNG\r\n\x1a\nbytes", "a.png", "image/png"},
                                                  {"entity", "101", "", ""}});
  REQUIRE(created);
  CHECK(created->status == 503);  // the fault answers first
  REQUIRE(client.Put("/__mock/faults", R"({"fail_rate": 0})", "application/json")->status == 200);
  const auto uploaded =
      client.Post("/edw/api/entities-images/",
                  httplib::MultipartFormDataItems{{"image", "\x89PNG\r\n\x1a\nbytes", "a.png", "image/png"},
                                                  {"entity", "101", "", ""}});
  REQUIRE(uploaded);
  REQUIRE(uploaded->status == 201);
  CHECK(get_json(client, "/edw/api/entities-images/?limit=1")["count"] == 101);
  const json journal = get_json(client, "/__mock/requests?method=POST");
  REQUIRE(journal["count"] == 2);
  CHECK(journal["requests"][1]["body_base64"].is_string());  // the upload's bytes, kept for the test
  CHECK(journal["requests"][1]["status"] == 201);

  REQUIRE(client.Put("/__mock/faults", R"({"fail_rate": 1})", "application/json")->status == 200);
  const auto reset = client.Post("/__mock/reset", "", "text/plain");
  REQUIRE(reset);
  CHECK(json::parse(reset->body)["uploads_removed"] == 1);
  CHECK(get_json(client, "/edw/api/entities-images/?limit=1")["count"] == 100);  // and no fault any more
  CHECK(get_json(client, "/__mock/requests")["count"] == 1);                     // only the GET just made
}

TEST_CASE("on --admin-port the routes leave the service's port to DRF", "[admin]") {
  AdminMock mock(0);
  httplib::Client service("127.0.0.1", mock.server.port());
  const auto there = service.Get("/__mock/requests");
  REQUIRE(there);
  CHECK(there->status == 404);  // Django's 404 page: the path is DRF's to answer
  CHECK(there->get_header_value("Content-Type").starts_with("text/html"));
  const std::string admin = mock.server.admin_url();
  REQUIRE(admin.find("/__mock/") != std::string::npos);
  const int admin_port = std::stoi(admin.substr(admin.rfind(':') + 1));
  CHECK(admin_port != mock.server.port());
  httplib::Client client("127.0.0.1", admin_port);
  CHECK(get_json(client, "/__mock/requests")["count"] == 1);  // the GET above, on the service's port
  CHECK(client.Get("/edw/api/entities-images/")->status == 404);
}

TEST_CASE("without --admin, /__mock/ is an ordinary path", "[admin]") {
  MockServer server(std::make_shared<Service>(make_generated_dataset(10, 1)), listen_on("127.0.0.1", 0, 2));
  server.start();
  httplib::Client client("127.0.0.1", server.port());
  const auto r = client.Get("/__mock/requests");
  REQUIRE(r);
  CHECK(r->status == 404);
  CHECK(server.admin_url().empty());
}

TEST_CASE("the journal keeps the latest entries up to its size and cuts long bodies", "[admin]") {
  detail::RequestJournal journal(3, std::size_t{1} << 30);
  HttpRequest r;
  r.method = "POST";
  r.body = std::string(detail::RequestJournal::kBodyKept + 10, 'x');
  for (int i = 0; i < 5; ++i) {
    r.target = "/p?i=" + std::to_string(i);
    journal.add(r, 201, 0, 0);
  }
  const auto listing = nlohmann::json::parse(journal.listing({}));
  REQUIRE(listing["count"] == 3);
  const auto& first = listing["requests"][0];
  CHECK(first["seq"] == 3);
  CHECK(first["body"].get<std::string>().size() == detail::RequestJournal::kBodyKept);
  CHECK(first["body_cut"] == true);
  CHECK(first["body_length"] == detail::RequestJournal::kBodyKept + 10);
  CHECK(first["body_sha256"] == entimg::common::sha256_hex(r.body));
}

// Before the byte bound, 10,000 anonymous 121 KiB POSTs kept 640 MB of bodies and their listing built 4.3 GB.
TEST_CASE("the journal is bounded by bytes: big bodies evict old entries, the listing stays within the bound",
          "[admin]") {
  constexpr std::size_t kBound = std::size_t{1} << 20;
  detail::RequestJournal journal(10000, kBound);
  HttpRequest r;
  r.method = "POST";
  r.target = "/edw/api/entities-images/";
  r.body = std::string(121 * 1024, '\x01');  // not text: kept as base64, the larger form
  r.body[0] = '\xff';
  for (int i = 0; i < 200; ++i)
    journal.add(r, 403, 58, 0.1);
  CHECK(journal.bytes() <= kBound);
  const std::string listing = journal.listing({});
  CHECK(listing.size() <= kBound);
  const auto parsed = nlohmann::json::parse(listing);
  CHECK(parsed["count"].get<std::size_t>() > 10);
  CHECK(parsed["count"].get<std::size_t>() < 200);
  CHECK(parsed["requests"].back()["seq"] == 200);  // the latest are kept
  CHECK(parsed["requests"].back()["body_length"] == 121 * 1024);
}

TEST_CASE("the journal's after= and before= refuse days a month does not have", "[admin]") {
  CHECK_FALSE(detail::JournalFilter::parse("after=2026-02-30T00:00:00Z").first);
  CHECK_FALSE(detail::JournalFilter::parse("before=2026-04-31T00:00:00Z").first);
  CHECK_FALSE(detail::JournalFilter::parse("after=2025-02-29T00:00:00Z").first);
  CHECK(detail::JournalFilter::parse("after=2028-02-29T00:00:00Z").first);
  CHECK(detail::JournalFilter::parse("after=2026-02-28T23:59:59.999Z").first);
}

TEST_CASE("the journal's query.NAME filter tells a bare name from an empty value", "[admin]") {
  const auto bare = detail::JournalFilter::parse("query.limit").first;
  REQUIRE(bare);
  CHECK_FALSE(bare->params.front().second);
  const auto empty = detail::JournalFilter::parse("query.limit=").first;
  REQUIRE(empty);
  CHECK(empty->params.front().second == std::optional<std::string>(""));
}

// Issue 36: a count with 501 query filters over ~1,760 entries held the journal's lock for 3 s, and every
// request answered meanwhile waited that long to be journaled (and so to be sent).
TEST_CASE("a costly journal query does not hold up the requests being journaled", "[admin][bounds]") {
  detail::RequestJournal journal(10000, std::size_t{1} << 30);
  HttpRequest r;
  r.method = "GET";
  r.target = "/edw/api/entities-images/?";
  std::string filters;
  for (int i = 0; i < 300; ++i) {
    r.target += "k" + std::to_string(i) + "=1&";
    filters += "query.k" + std::to_string(i) + "=1&";
  }
  for (int i = 0; i < 2000; ++i)
    journal.add(r, 200, 10, 0.1);
  const auto filter = detail::JournalFilter::parse(filters + "query.k0").first;
  REQUIRE(filter);
  // A trial shows something only when the count had begun before the add (it counted the entries before
  // it) and was still running when the add came; the 20 ms are a head start, not a bound: on a busy machine
  // a trial where the count's thread started late, or ended early, is run again (at most 20 trials).
  int shown = 0;
  for (std::size_t trial = 0; trial < 20 && shown == 0; ++trial) {
    std::atomic<bool> counting{true};
    std::size_t counted = 0;
    std::thread count([&] {
      counted = journal.count(*filter);
      counting = false;
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(20));  // a head start for the count
    const bool running_before = counting;
    const auto started = std::chrono::steady_clock::now();
    journal.add(r, 200, 10, 0.1);
    const auto waited = std::chrono::steady_clock::now() - started;
    // The order of events, not a time: the add returned while the count still ran. An add that waited for
    // the count's lock would return only after the count was over (issue 43: no wall-clock bound).
    const bool running_after = counting;
    count.join();
    // Ended before the add, or began after it: run again.
    if (!running_before || counted != 2000 + trial) continue;
    const double waited_ms = std::chrono::duration<double, std::milli>(waited).count();
    INFO("trial " << trial << ": the request waited " << waited_ms << " ms");
    CHECK(running_after);
    ++shown;
  }
  CHECK(shown == 1);
}

TEST_CASE("the journal's query filters find a parameter among many, by name and value", "[admin]") {
  detail::RequestJournal journal(10, std::size_t{1} << 20);
  HttpRequest r;
  r.method = "GET";
  r.target = "/p?z=1&a=2&m=&a=1&b";
  journal.add(r, 200, 0, 0);
  const auto count = [&](const std::string& query) {
    const auto filter = detail::JournalFilter::parse(query).first;
    REQUIRE(filter);
    return journal.count(*filter);
  };
  CHECK(count("query.a=1&query.a=2&query.z=1&query.m=&query.b") == 1);
  CHECK(count("query.a") == 1);
  CHECK(count("query.m") == 1);
  CHECK(count("query.a=3") == 0);
  CHECK(count("query.m=1") == 0);
  CHECK(count("query.c") == 0);
  CHECK(count("query.zz") == 0);
  const auto listing = nlohmann::json::parse(journal.listing({}));
  CHECK(listing["requests"][0]["query"]["a"] == json::array({"2", "1"}));
  CHECK(listing["requests"][0]["query"]["b"] == json::array({""}));
}

// Issue 43: a cross-site text/plain POST to /__mock/reset (a "simple" request, no preflight) emptied the
// mock; any Host was answered, so a DNS-rebinding page could read the journal, which held Authorization and
// Cookie in clear. The admin routes now check Host as Django's ALLOWED_HOSTS does and writes' Origin and
// Sec-Fetch-Site as its CSRF check does; the journal masks credentials unless --journal-credentials.
TEST_CASE("admin routes refuse foreign Hosts and cross-site writes, and the journal masks credentials",
          "[admin]") {
  AdminMock mock;
  const std::string own = "127.0.0.1:" + std::to_string(mock.server.port());
  httplib::Client client("127.0.0.1", mock.server.port());
  REQUIRE(client.Get("/edw/api/entities-images/", {{"Authorization", "Basic YWxpY2U6czNjcmV0"},
                                                   {"Cookie", "sessionid=abc123"},
                                                   {"X-Api-Key", "k3y"},
                                                   {"Accept", "application/json"}}));
  const auto status_of = [&](const char* method, const httplib::Headers& headers) {
    httplib::Request request;
    request.method = method;
    request.path = method == std::string("POST") ? "/__mock/reset" : "/__mock/requests";
    request.headers = headers;
    if (request.method == "POST") {
      request.body = "x";
      request.set_header("Content-Type", "text/plain");
    }
    const auto r = client.send(request);
    REQUIRE(r);
    INFO(method << " " << r->status << " " << r->body);
    return r->status;
  };
  SECTION("a foreign Host, as after DNS rebinding: 403, nothing read") {
    CHECK(status_of("GET", {{"Host", "attacker.example"}}) == 403);
    CHECK(status_of("GET", {{"Host", "attacker.example:" + std::to_string(mock.server.port())}}) == 403);
    CHECK(status_of("GET", {{"Host", "localhost:8000"}}) == 200);
    CHECK(status_of("GET", {{"Host", "app.localhost"}}) == 200);
    CHECK(status_of("GET", {{"Host", "[::1]:8000"}}) == 200);
  }
  SECTION("a cross-site write: 403, and the mock is not reset") {
    CHECK(status_of("POST", {{"Origin", "http://attacker.example"}}) == 403);
    CHECK(status_of("POST", {{"Origin", "http://localhost:3000"}}) == 403);  // another app on this machine
    CHECK(status_of("POST", {{"Origin", "null"}}) == 403);
    CHECK(status_of("POST", {{"Sec-Fetch-Site", "cross-site"}}) == 403);
    CHECK(status_of("POST", {{"Sec-Fetch-Site", "same-site"}}) == 403);
    CHECK(get_json(client, "/__mock/requests/count")["count"] == 1);
    // The mock's own origin, a request a person made (Sec-Fetch-Site: none), a test's client: written.
    CHECK(status_of("POST", {{"Origin", "http://" + own}, {"Sec-Fetch-Site", "same-origin"}}) == 200);
    CHECK(status_of("POST", {{"Sec-Fetch-Site", "none"}}) == 200);
    CHECK(status_of("POST", {}) == 200);
    CHECK(get_json(client, "/__mock/requests/count")["count"] == 0);
  }
  SECTION("the journal shows credentials masked") {
    const json headers = get_json(client, "/__mock/requests")["requests"][0]["headers"];
    const std::string text = headers.dump();
    INFO(text);
    CHECK(text.find("YWxpY2U6czNjcmV0") == std::string::npos);
    CHECK(text.find("abc123") == std::string::npos);
    CHECK(text.find("k3y") == std::string::npos);
    CHECK(text.find(R"(["Authorization","*****"])") != std::string::npos);
    CHECK(text.find(R"(["Accept","application/json"])") != std::string::npos);
  }
}

TEST_CASE("admin routes: --cors origins and --admin-host widen them, --journal-credentials keeps credentials",
          "[admin]") {
  ServerOptions o = AdminMock::options(-1);
  o.cors.origins = {"http://localhost:3000"};
  o.admin_host = "mock.test";
  o.journal_credentials = true;
  MockServer server(AdminMock::service(), o);
  server.start();
  httplib::Client client("127.0.0.1", server.port());
  REQUIRE(client.Get("/edw/api/entities-images/", {{"Authorization", "Basic YWxpY2U6czNjcmV0"}}));
  const auto get = client.Get("/__mock/requests", {{"Host", "mock.test:8000"}});
  REQUIRE(get);
  CHECK(get->status == 200);
  CHECK(get->body.find("YWxpY2U6czNjcmV0") != std::string::npos);
  const auto from_app = client.Post("/__mock/reset", {{"Origin", "http://localhost:3000"}}, "", "text/plain");
  REQUIRE(from_app);
  CHECK(from_app->status == 200);
  const auto from_named = client.Post("/__mock/reset", {{"Origin", "https://mock.test"}}, "", "text/plain");
  REQUIRE(from_named);
  CHECK(from_named->status == 200);
  CHECK(client.Get("/__mock/requests", {{"Host", "other.test"}})->status == 403);
}
