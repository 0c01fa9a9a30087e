#include "entimg/mock/service.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "entimg/common/schema.hpp"

using namespace entimg::mock;
using nlohmann::json;

namespace {
const Service& service() {
  static const Service s(make_generated_dataset(300, 1));
  return s;
}

HttpResponse get(std::string target,
                 std::vector<std::pair<std::string, std::string>> headers = {{"Host", "testserver"}},
                 std::string method = "GET") {
  return service().handle(
      HttpRequest{std::move(method), std::move(target), std::move(headers), "127.0.0.1:8000", {}});
}

std::string header(const HttpResponse& r, std::string_view name) {
  for (const auto& [k, v] : r.headers)
    if (k == name) return v;
  return "<absent>";
}

const entimg::common::SchemaValidator& page_schema() {
  static const auto v =
      entimg::common::SchemaValidator::from_file(entimg::common::schema_dir() / "page.schema.json");
  return v;
}
}  // namespace

TEST_CASE("a middle page: 12 records in ascending id order and DRF's links", "[service]") {
  const auto r = get("/edw/api/entities-images/?format=json&offset=24");
  REQUIRE(r.status == 200);
  CHECK(r.content_type == "application/json");
  CHECK(header(r, "Allow") == "GET, POST, HEAD, OPTIONS");
  CHECK(header(r, "Vary") == "Accept");
  const json page = json::parse(r.body);
  CHECK(page["count"] == 300);
  CHECK(page["next"] == "http://testserver/edw/api/entities-images/?format=json&limit=12&offset=36");
  CHECK(page["previous"] == "http://testserver/edw/api/entities-images/?format=json&limit=12&offset=12");
  REQUIRE(page["results"].size() == 12);
  for (std::size_t i = 1; i < 12; ++i)
    CHECK(page["results"][i]["id"] > page["results"][i - 1]["id"]);
  CHECK(page_schema().validate(page).empty());
  // Key order is the serializer's, bytes are compact.
  CHECK(r.body.starts_with(R"({"count":300,"next":"http://testserver/)"));
  CHECK(r.body.find(R"(,"results":[{"id":)") != std::string::npos);
}

TEST_CASE("every record's image is the request origin + /media/ + file", "[service]") {
  const auto r = get("/edw/api/entities-images/?limit=50",
                     {{"Host", "example.org:8080"}, {"X-Forwarded-Proto", "https"}});
  const json page = json::parse(r.body);
  for (const auto& rec : page["results"]) {
    const std::string file = rec["file"];
    CHECK(rec["image"] == "https://example.org:8080/media/" + file);  // slugified names need no escaping
  }
  CHECK(page["next"].get<std::string>().starts_with("https://example.org:8080/"));
  CHECK(page_schema().validate(page).empty());
}

TEST_CASE("X-Forwarded-Host wins over Host, and only an exact 'https' makes https", "[service]") {
  auto next = [](std::vector<std::pair<std::string, std::string>> h) {
    return json::parse(get("/edw/api/entities-images/", std::move(h)).body)["next"].get<std::string>();
  };
  CHECK(next({{"Host", "a.org"}, {"X-Forwarded-Host", "b.org:9"}}).starts_with("http://b.org:9/"));
  CHECK(next({{"Host", "a.org"}, {"X-Forwarded-Proto", "HTTPS"}}).starts_with("http://a.org/"));
  CHECK(next({{"Host", "a.org"}, {"X-Forwarded-Proto", "https,http"}}).starts_with("http://a.org/"));
  CHECK(next({}).starts_with("http://127.0.0.1:8000/"));
}

TEST_CASE("an invalid host is Django's 400 page on every path", "[service]") {
  for (const char* host : {"a.org,b.org", "my_host", "", "."}) {
    const auto r = get("/edw/api/entities-images/", {{"Host", host}});
    CHECK(r.status == 400);
    CHECK(r.content_type == "text/html");
    CHECK_THAT(r.body, Catch::Contains("<title>Bad Request (400)</title>"));
  }
  CHECK(get("/nowhere", {{"Host", "a b"}}).status == 400);
  CHECK(get("/edw/api/entities-images/", {{"Host", "[::1]:80"}}).status == 200);
}

TEST_CASE("first, last and overflow pages", "[service]") {
  const json first = json::parse(get("/edw/api/entities-images/").body);
  CHECK(first["previous"].is_null());
  CHECK(first["next"] == "http://testserver/edw/api/entities-images/?limit=12&offset=12");
  const json last = json::parse(get("/edw/api/entities-images/?offset=288").body);
  CHECK(last["next"].is_null());
  CHECK(last["results"].size() == 12);
  const json partial = json::parse(get("/edw/api/entities-images/?offset=295").body);
  CHECK(partial["results"].size() == 5);
  const json over = json::parse(get("/edw/api/entities-images/?offset=1000").body);
  CHECK(over["results"].empty());
  CHECK(over["next"].is_null());
  CHECK(over["previous"] == "http://testserver/edw/api/entities-images/?limit=12&offset=988");
  // MySQL takes a LIMIT up to 2^64-1 and refuses one above (error 1064: Django's 500 page), but only when
  // DRF queries: 0 < count and offset <= count.
  const json huge = json::parse(get("/edw/api/entities-images/?limit=18446744073709551615").body);
  CHECK(huge["results"].size() == 300);
  CHECK(huge["next"].is_null());
  for (const char* target : {"/edw/api/entities-images/?limit=18446744073709551616",
                             "/edw/api/entities-images/?limit=5&limit=99999999999999999999999",
                             "/edw/api/entities-images/?offset=300&limit=18446744073709551616"}) {
    INFO(target);
    const HttpResponse refused = get(target);
    CHECK(refused.status == 500);
    CHECK(refused.body.find("Server Error (500)") != std::string::npos);
  }
  const json past = json::parse(get("/edw/api/entities-images/?offset=301&limit=18446744073709551616").body);
  CHECK(past["results"].empty());  // past the end DRF answers without a query
  CHECK(get("/edw/api/entities-images/?entity=999999&limit=18446744073709551616").status == 200);  // count 0
}

TEST_CASE("edw drops parameters whose last value is blank, but links still carry them", "[service]") {
  const json a = json::parse(get("/edw/api/entities-images/?limit=5&limit=").body);
  CHECK(a["results"].size() == 12);
  CHECK(a["next"] == "http://testserver/edw/api/entities-images/?limit=12&offset=12");
  const json b = json::parse(get("/edw/api/entities-images/?limit=&limit=5&entity=").body);
  CHECK(b["results"].size() == 5);
  CHECK(b["next"] == "http://testserver/edw/api/entities-images/?entity=&limit=5&offset=5");
}

// Before: ?entity= was ignored on a record's routes; edw's filter backend runs inside get_object().
TEST_CASE("the entity filter applies on the detail routes, as get_object() filters first", "[service]") {
  const json first = json::parse(get("/edw/api/entities-images/?limit=1").body)["results"][0];
  const std::string id = first["id"].dump(), entity = first["entity"].dump();
  const std::string other = std::to_string(first["entity"].get<std::int64_t>() + 1);
  for (const std::string& route :
       {"/edw/api/entities-images/" + id + "/", "/edw/api/entities/" + other + "/images/" + id + "/"}) {
    INFO(route);
    CHECK(get(route + "?entity=" + entity).status == 200);
    CHECK(get(route + "?entity=" + entity + ".0").status == 200);  // DecimalField: 5.0 is 5
    CHECK(get(route + "?entity=").status == 200);                  // blank: dropped by edw
    const HttpResponse wrong = get(route + "?entity=" + other);
    CHECK(wrong.status == 404);
    CHECK(wrong.body == R"({"detail":"Not found."})");
    const HttpResponse bad = get(route + "?entity=abc");
    CHECK(bad.status == 400);
    CHECK(bad.body == R"({"entity":["Enter a number."]})");
    CHECK(header(bad, "Allow") == "GET, PUT, PATCH, DELETE, HEAD, OPTIONS");
    CHECK(get("/edw/api/entities-images/99999999/?entity=abc").status == 400);  // the filter comes first
  }
}

TEST_CASE("the entity filter and its error", "[service]") {
  const json all = json::parse(get("/edw/api/entities-images/?limit=300").body);
  const auto entity = all["results"][7]["entity"].get<std::int64_t>();
  const json some = json::parse(get("/edw/api/entities-images/?entity=" + std::to_string(entity)).body);
  CHECK(some["count"].get<int>() >= 1);
  for (const auto& rec : some["results"])
    CHECK(rec["entity"] == entity);
  const json decimal =
      json::parse(get("/edw/api/entities-images/?entity=" + std::to_string(entity) + ".0").body);
  CHECK(decimal["count"] == some["count"]);
  const auto bad = get("/edw/api/entities-images/?entity=abc");
  CHECK(bad.status == 400);
  CHECK(bad.body == R"({"entity":["Enter a number."]})");
  CHECK(header(bad, "Allow") == "GET, POST, HEAD, OPTIONS");
  CHECK(json::parse(get("/edw/api/entities-images/?entity=1e40").body)["count"] == 0);
  CHECK(get("/edw/api/entities-images/?entity=1e51").body ==
        R"({"entity":["Ensure this value is less than or equal to 1e+50."]})");
}

TEST_CASE("format and Accept: 404 and 406 bodies from DRF", "[service]") {
  const auto unknown = get("/edw/api/entities-images/?format=xml");
  CHECK(unknown.status == 404);
  CHECK(unknown.body == R"({"detail":"Not found."})");
  CHECK(header(unknown, "Vary") == "Accept");
  const auto xml = get("/edw/api/entities-images/", {{"Host", "t"}, {"Accept", "application/xml"}});
  CHECK(xml.status == 406);
  CHECK(xml.body == R"({"detail":"Could not satisfy the request Accept header."})");
  CHECK(get("/edw/api/entities-images/?format=").status == 200);
  CHECK(get("/edw/api/entities-images.json").status == 200);
  CHECK(get("/edw/api/entities-images.xml").status == 404);
  const auto pretty =
      get("/edw/api/entities-images/?limit=1", {{"Host", "t"}, {"Accept", "application/json; indent=4"}});
  CHECK(pretty.body.starts_with("{\n    \"count\": 300,\n    \"next\": \"http://t/"));
  CHECK(json::parse(pretty.body) ==
        json::parse(get("/edw/api/entities-images/?limit=1", {{"Host", "t"}}).body));
}

TEST_CASE("Django's routing around the view: 301 to the slash, HTML 404 elsewhere", "[service]") {
  const auto redirect = get("/edw/api/entities-images?limit=1&x=%20y");
  CHECK(redirect.status == 301);
  CHECK(header(redirect, "Location") == "/edw/api/entities-images/?limit=1&x=%20y");
  CHECK(redirect.body.empty());
  CHECK(header(redirect, "Allow") == "<absent>");
  const auto missing = get("/edw/api/nothing/");
  CHECK(missing.status == 404);
  CHECK(missing.content_type == "text/html");
  CHECK_THAT(missing.body, Catch::Contains("<h1>Not Found</h1>"));
}

TEST_CASE("anonymous writes are 403 before the method is looked at, OPTIONS describes the view",
          "[service]") {
  for (const char* method : {"POST", "PUT", "PATCH", "DELETE"}) {
    const auto r = get("/edw/api/entities-images/", {{"Host", "t"}}, method);
    CHECK(r.status == 403);
    CHECK(r.body == R"({"detail":"Authentication credentials were not provided."})");
  }
  const auto options = get("/edw/api/entities-images/", {{"Host", "t"}}, "OPTIONS");
  CHECK(options.status == 200);
  CHECK(json::parse(options.body)["name"] == "Entity Image List");
  CHECK_FALSE(json::parse(options.body).contains("actions"));
}

TEST_CASE("the detail route serves each record of a generated collection, and 404s the rest",
          "[service][routes]") {
  const json page = json::parse(get("/edw/api/entities-images/?limit=50&offset=100").body);
  for (const auto& record : page["results"]) {
    const HttpResponse r =
        get("/edw/api/entities-images/" + std::to_string(record["id"].get<std::int64_t>()) + "/");
    REQUIRE(r.status == 200);
    CHECK(json::parse(r.body) == record);
    CHECK(header(r, "Allow") == "GET, PUT, PATCH, DELETE, HEAD, OPTIONS");
  }
  for (const char* pk : {"0", "-1", "999999999", "abc", "99999999999999999999999"})
    CHECK(get(std::string("/edw/api/entities-images/") + pk + "/").status == 404);
  CHECK(get("/edw/api/entities-images/4").status == 301);
}

TEST_CASE("the API root lists the collection, keeping the format", "[service][routes]") {
  CHECK(json::parse(get("/edw/api/").body)["entities-images"] ==
        "http://testserver/edw/api/entities-images/");
  CHECK(json::parse(get("/edw/api/.json").body)["entities-images"] ==
        "http://testserver/edw/api/entities-images.json");
  CHECK(json::parse(get("/edw/api/?format=json").body)["entities-images"] ==
        "http://testserver/edw/api/entities-images/?format=json");
  CHECK(header(get("/edw/api/"), "Allow") == "GET, HEAD, OPTIONS");
  CHECK(get("/edw/api/", {{"Host", "testserver"}}, "DELETE").status == 405);
  CHECK(get("/edw/api/.xml").status == 404);
}

TEST_CASE("a page longer than a batch of records is the same records as short pages, in order", "[service]") {
  // list_page writes 1024 records at a time; pages across several batches must join seamlessly.
  const Service big(make_generated_dataset(5000, 2));
  const auto page = [&big](const std::string& query) {
    return json::parse(
        big.handle(HttpRequest{"GET", "/edw/api/entities-images/?" + query, {{"Host", "testserver"}}, "", {}})
            .body);
  };
  const json whole = page("limit=4000&offset=700");
  REQUIRE(whole["results"].size() == 4000);
  json joined = json::array();
  for (int offset = 700; offset < 4700; offset += 500) {
    const json part = page("limit=500&offset=" + std::to_string(offset));  // kept: results refers into it
    for (const json& r : part["results"])
      joined.push_back(r);
  }
  CHECK(whole["results"] == joined);
  CHECK(page("limit=999999&offset=4990")["results"].size() == 10);  // the end, inside a batch
}

namespace {
// FNV-1a, 64 bits: a fingerprint of answer bytes that any change of a byte changes.
std::uint64_t fingerprint(std::string_view bytes) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (const char c : bytes)
    h = (h ^ static_cast<unsigned char>(c)) * 0x100000001b3ULL;
  return h;
}
}  // namespace

TEST_CASE("generated pages keep their bytes: seeds 1 and 7, compact, indented, filtered, deep", "[service]") {
  // Pinned from the answers of 47af319, before the page writer was made fast (issue 20): the collection
  // a seed names is the same bytes on every machine and in every version, so tests and recordings made
  // against the mock stay valid.
  const Service small(make_generated_dataset(300000, 1)), other(make_generated_dataset(300000, 7)),
      huge(make_generated_dataset(10'000'000, 1));
  struct Case {
    const Service& service;
    std::string target;
    std::vector<std::pair<std::string, std::string>> headers;
    std::uint64_t expected;
  };
  const std::vector<std::pair<std::string, std::string>> plain = {{"Host", "testserver"}};
  const Case cases[] = {
      {small, "/edw/api/entities-images/?limit=1000", plain, 0xd3786cc0cdb95553ULL},
      {small, "/edw/api/entities-images/?limit=1000&offset=150000", plain, 0xb03cf1cf609cd34bULL},
      {small, "/edw/api/entities-images/?offset=299990&format=json", plain, 0x214add3a7c507640ULL},
      {small,
       "/edw/api/entities-images/?limit=300&offset=24",
       {{"Host", "Example.ORG:8443"},
        {"X-Forwarded-Proto", "https"},
        {"Accept", "application/json; indent=4"}},
       0x733e08c260c6be47ULL},
      {small, "/edw/api/entities-images/?entity=60986&limit=50", plain, 0xd895561303de3c96ULL},
      {small, "/edw/api/entities/101/images/", plain, 0x793a92ffed6d69c0ULL},
      {small, "/edw/api/entities-images/4/", plain, 0x4388e6e4cdcabe11ULL},
      {other, "/edw/api/entities-images/?limit=1000&offset=77777", plain, 0xa0ad03d777f3ee6eULL},
      {huge, "/edw/api/entities-images/?limit=1000&offset=9999000", plain, 0x884953d829d1403cULL},
  };
  for (const Case& c : cases) {
    const HttpResponse r = c.service.handle(HttpRequest{"GET", c.target, c.headers, "127.0.0.1:8000", {}});
    INFO(c.target << " -> " << r.body.substr(0, 200));
    CHECK(r.status == 200);
    CHECK(fingerprint(r.body) == c.expected);
  }
}
