#include "entimg/common/url.hpp"
#include "entimg/common/terminal_text.hpp"

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

TEST_CASE("quote keeps letters, digits, _.-~ and the safe bytes, else upper-case %XX", "[url]") {
  CHECK(quote("a b/c%d+e~f_g.h-iZ9", "") == "a%20b%2Fc%25d%2Be~f_g.h-iZ9");
  CHECK(quote("a b/c%d+e", "/") == "a%20b/c%25d%2Be");
  CHECK(quote("/:@&+$,!*'()", "/:@&+$,!*'()") == "/:@&+$,!*'()");
  CHECK(quote("\xD0\xAF\xFF", "") == "%D0%AF%FF");
  CHECK(quote(std::string_view("\0\x7f", 2), "") == "%00%7F");
  CHECK(quote("", "/").empty());
}

TEST_CASE("write_quote writes in place and returns the end, append_quote appends", "[url]") {
  static constexpr PercentSafe kSafe = quote_safe("/~!*()'");
  char buffer[3 * 6] = {};
  const char* end = write_quote(buffer, "a b/\xC3\xA9", kSafe);
  CHECK(std::string_view(buffer, static_cast<std::size_t>(end - buffer)) == "a%20b/%C3%A9");
  std::string out = "x?";
  append_quote(out, "(1)+[2]", kSafe);
  CHECK(out == "x?(1)%2B%5B2%5D");
}

TEST_CASE("append_percent_escape writes one byte as upper-case %XX", "[url]") {
  std::string out = "p";
  append_percent_escape(out, 0xAB);
  append_percent_escape(out, 0x0A);
  CHECK(out == "p%AB%0A");
}

TEST_CASE("request-line encoding changes only controls, space, DEL and bytes >= 0x80", "[url]") {
  std::string out = "GET ";
  append_request_line_safe(out, std::string_view("/a b?q=%41+c&d=\xD0\xAF\r\n\x7f~", 21));
  CHECK(out == "GET /a%20b?q=%41+c&d=%D0%AF%0D%0A%7F~");
}

TEST_CASE("printable: control and bidi characters as escapes, the rest of UTF-8 as it is", "[text]") {
  using entimg::common::printable;
  CHECK(printable("plain é ✓ 🙂") == "plain é ✓ 🙂");
  CHECK(printable("a\x1b]0;t\x07\r\n\tz\x7f") == "a\\x1b]0;t\\x07\\x0d\\x0a\\x09z\\x7f");
  CHECK(printable("\xc2\x80\xc2\x9b\xc2\x9f\xc2\xa0") == "\\u0080\\u009b\\u009f\xc2\xa0");  // NBSP kept
  CHECK(printable("\xd8\x9c|\xe2\x80\x8e|\xe2\x80\x8f|\xe2\x80\xaa|\xe2\x80\xae|\xe2\x81\xa6|\xe2\x81\xa9") ==
        "\\u061c|\\u200e|\\u200f|\\u202a|\\u202e|\\u2066|\\u2069");
  CHECK(printable("\xe2\x80\x8d\xe2\x80\xaf\xe2\x81\xa5") ==
        "\xe2\x80\x8d\xe2\x80\xaf\xe2\x81\xa5");                // ZWJ, U+202F, U+2065
  CHECK(printable("a\xff").find('\xff') == std::string::npos);  // invalid UTF-8: replaced
}
