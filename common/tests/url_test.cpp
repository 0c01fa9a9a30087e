#include "entimg/common/url.hpp"

#include <catch2/catch.hpp>

using namespace entimg::common;

TEST_CASE("percent_decode decodes escapes and keeps broken ones", "[url]") {
  CHECK(percent_decode("a%20b+c", true) == "a b c");
  CHECK(percent_decode("a%20b+c", false) == "a b+c");
  CHECK(percent_decode("%zz%4", true) == "%zz%4");
  CHECK(percent_decode("%", true) == "%");
  CHECK(percent_decode("%D0%AF", true) == "\xD0\xAF");
}

TEST_CASE("utf8_replace_invalid substitutes one U+FFFD per maximal subpart", "[url]") {
  const std::string fffd = "\xEF\xBF\xBD";
  CHECK(utf8_replace_invalid("ok \xD0\xAF") == "ok \xD0\xAF");
  CHECK(utf8_replace_invalid("\xFF") == fffd);
  CHECK(utf8_replace_invalid("\xE2\x82") == fffd);                    // truncated 3-byte sequence: one
  CHECK(utf8_replace_invalid("\xC0\x80") == fffd + fffd);             // never-valid lead byte: two
  CHECK(utf8_replace_invalid("\xED\xA0\x80") == fffd + fffd + fffd);  // surrogate: three
  CHECK(utf8_replace_invalid("\xE2\x82x") == fffd + "x");
}

TEST_CASE("parse_query splits on & only and keeps blanks and repeats", "[url]") {
  const auto p = parse_query("a=1&&b=&c&a=2;x=y&=v");
  REQUIRE(p.size() == 5);
  CHECK(p[0] == std::pair<std::string, std::string>{"a", "1"});
  CHECK(p[1] == std::pair<std::string, std::string>{"b", ""});
  CHECK(p[2] == std::pair<std::string, std::string>{"c", ""});
  CHECK(p[3] == std::pair<std::string, std::string>{"a", "2;x=y"});
  CHECK(p[4] == std::pair<std::string, std::string>{"", "v"});
  CHECK(*first_value(p, "a") == "1");
  CHECK(*last_value(p, "a") == "2;x=y");
  CHECK(last_value(p, "zz") == nullptr);
}

TEST_CASE("split_url finds the parts of an absolute URL", "[url]") {
  const auto u = split_url("HTTPS://Example.org:8443/edw/api/entities-images/?limit=12&offset=24#frag");
  REQUIRE(u.ok);
  CHECK(u.scheme == "https");
  CHECK(u.authority == "Example.org:8443");
  CHECK(u.path == "/edw/api/entities-images/");
  CHECK(u.has_query);
  CHECK(u.query == "limit=12&offset=24");
  CHECK_FALSE(split_url("/relative/path").ok);
  CHECK_FALSE(split_url("http://").ok);
  CHECK(split_url("http://h").path == "/");
}

TEST_CASE("quote_plus encodes all but unreserved characters, space as '+'", "[url]") {
  std::string out = "k=";
  append_quote_plus(out, std::string_view("a b/c,d~e_f.g-h+\xD0\xAF\0", 19));
  CHECK(out == "k=a+b%2Fc%2Cd~e_f.g-h%2B%D0%AF%00");
}
