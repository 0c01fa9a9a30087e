// Accept-Encoding as servers read it, and decoding what a server compressed: bounded, and every broken
// stream named.
#include <catch2/catch.hpp>

#include "compressed.hpp"
#include "content_coding.hpp"

namespace {

using namespace entimg::contract::detail;
using Catch::Matchers::Contains;
using entimg::contract::test::deflated;

TEST_CASE("accepts_coding reads Accept-Encoding as RFC 9110 §12.5.3 says", "[coding]") {
  CHECK(accepts_coding("gzip", "gzip"));
  CHECK(accepts_coding("br, gzip;q=0.5", "gzip"));
  CHECK(accepts_coding("x-gzip", "gzip"));
  CHECK(accepts_coding("*", "br"));
  CHECK_FALSE(accepts_coding("gzip;q=0", "gzip"));
  CHECK_FALSE(accepts_coding("*, gzip;q=0.000", "gzip"));
  CHECK_FALSE(accepts_coding("br", "gzip"));
  CHECK_FALSE(accepts_coding("identity", "gzip"));
  CHECK(accepts_coding("br", "identity"));
  CHECK_FALSE(accepts_coding("identity;q=0", "identity"));
  CHECK_FALSE(accepts_coding("*;q=0", ""));
  // No Accept-Encoding: servers send no compression, so a compressed answer is theirs to explain.
  CHECK_FALSE(accepts_coding(std::nullopt, "gzip"));
  CHECK(accepts_coding(std::nullopt, "identity"));
  CHECK(coding_of(" GZip ") == "gzip");
  CHECK(coding_of("identity").empty());
}

TEST_CASE("decode_body: gzip, deflate (zlib or raw), br, and cut, corrupt and oversized bodies are named",
          "[coding]") {
  const std::string text = R"({"count":3,"results":[1,2,3]})";
  CHECK(decode_body("gzip", deflated(text, 15 + 16)).text == text);
  CHECK(decode_body("gzip", deflated(text, 15 + 16) + deflated(text, 15 + 16)).text == text + text);
  CHECK(decode_body("deflate", deflated(text, 15)).text == text);
  CHECK(decode_body("deflate", deflated(text, -15)).text == text);
  const std::string gz = deflated(text, 15 + 16);
  CHECK_THAT(decode_body("gzip", gz.substr(0, gz.size() - 5)).error, Contains("a gzip stream cut short"));
  CHECK_THAT(decode_body("gzip", "not gzip at all").error, Contains("not a valid gzip stream"));
  CHECK_THAT(decode_body("br", gz).error, Contains("not a valid br stream"));
  CHECK_THAT(decode_body("zstd", gz).error, Contains("the suite cannot decode Content-Encoding zstd"));
  // A small body that inflates past the bound is refused, not held.
  const std::string bomb = deflated(std::string(1 << 20, 'x'), 15 + 16);
  const Decoded bounded = decode_body("gzip", bomb, 1000);
  CHECK(bounded.text.empty());
  CHECK_THAT(bounded.error, Contains("decodes to more than 1000 bytes"));
}

}  // namespace
