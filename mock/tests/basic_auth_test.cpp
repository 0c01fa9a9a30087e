// DRF's BasicAuthentication as the mock answers it; the differential test compares the same cases with
// real DRF byte for byte, these pin the decoding rules (Python's lenient base64) one by one.
#include "basic_auth.hpp"

#include <catch2/catch.hpp>

#include "entimg/mock/service.hpp"

using namespace entimg::mock;
using namespace entimg::mock::detail;

namespace {
const User kAlice{"alice", "s3cret"};  // base64 of "alice:s3cret": YWxpY2U6czNjcmV0

HttpResponse ask_collection(const std::string& method,
                            std::vector<std::pair<std::string, std::string>> headers) {
  static const Service service(make_generated_dataset(30, 1), kAlice);
  headers.emplace_back("Host", "testserver");
  return service.handle(
      HttpRequest{method, "/edw/api/entities-images/", std::move(headers), "127.0.0.1:8000", {}});
}
}  // namespace

TEST_CASE("Basic credentials are read as DRF reads them", "[auth]") {
  CHECK_FALSE(basic_authenticate(std::nullopt, &kAlice).authenticated);
  CHECK(basic_authenticate(std::string("Bearer abc"), &kAlice).failure.empty());  // not Basic: anonymous
  CHECK(basic_authenticate(std::string("Basic YWxpY2U6czNjcmV0"), &kAlice).authenticated);
  CHECK(basic_authenticate(std::string("  bAsIc \t YWxpY2U6czNjcmV0 "), &kAlice).authenticated);
  CHECK(basic_authenticate(std::string("Basic YWxp!Y2U6c*zNjcmV0"), &kAlice)
            .authenticated);  // stray bytes skipped
  // Python decodes on after padding that ends a quad early ("==" after a full quad is skipped).
  CHECK_FALSE(basic_authenticate(std::string("Basic YWxpY2U6czNjcmV0==junk"), &kAlice).authenticated);
  CHECK(basic_authenticate(std::string("Basic YWxpY2U6czNjcmV0=="), &kAlice).authenticated);
  CHECK(basic_authenticate(std::string("Basic"), &kAlice).failure ==
        "Invalid basic header. No credentials provided.");
  CHECK(basic_authenticate(std::string("Basic a b"), &kAlice).failure ==
        "Invalid basic header. Credentials string should not contain spaces.");
  CHECK(basic_authenticate(std::string("Basic YWxpY2U6czNjcmV"), &kAlice).failure ==
        "Invalid basic header. Credentials not correctly base64 encoded.");
  CHECK(basic_authenticate(std::string("Basic YQ="), &kAlice).failure ==
        "Invalid basic header. Credentials not correctly base64 encoded.");  // one '=' short
  CHECK(basic_authenticate(std::string("Basic !!!!"), &kAlice).failure == "Invalid username/password.");
  CHECK(basic_authenticate(std::string("Basic YWxpY2U="), &kAlice).failure == "Invalid username/password.");
  CHECK(basic_authenticate(std::string("Basic YWxpY2U6czNjcmV0"), nullptr).failure ==
        "Invalid username/password.");
}

TEST_CASE("the user: OPTIONS lists POST, other writes 405, POST without a body 400, odd types 415",
          "[auth]") {
  const std::pair<std::string, std::string> alice{"Authorization", "Basic YWxpY2U6czNjcmV0"};
  CHECK_THAT(ask_collection("OPTIONS", {alice}).body, Catch::Contains(R"("actions":{"POST":{"id":)"));
  CHECK_THAT(ask_collection("OPTIONS", {}).body, !Catch::Contains("actions"));
  const HttpResponse put = ask_collection("PUT", {alice});
  CHECK(put.status == 405);
  CHECK(put.body == R"({"detail":"Method \"PUT\" not allowed."})");
  CHECK(ask_collection("PUT", {}).status == 403);
  CHECK(ask_collection("GET", {{"Authorization", "Basic YTpi"}}).status == 403);
  CHECK(ask_collection("POST", {alice, {"Content-Length", "0"}}).body ==
        R"({"image":["No file was submitted."],"entity":["This field is required."]})");
  const HttpResponse odd =
      ask_collection("POST", {alice, {"Content-Type", "text/plain"}, {"Content-Length", "3"}});
  CHECK(odd.status == 415);
  CHECK(odd.body == R"({"detail":"Unsupported media type \"text/plain\" in request."})");
  // A multipart body that holds no part: the serializer finds the required fields missing.
  CHECK(ask_collection("POST",
                       {alice, {"Content-Type", "multipart/form-data; boundary=x"}, {"Content-Length", "10"}})
            .body == R"({"image":["No file was submitted."],"entity":["This field is required."]})");
}
