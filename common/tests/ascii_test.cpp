#include "entimg/common/ascii.hpp"

#include <catch2/catch.hpp>

using namespace entimg::common;

TEST_CASE("ASCII case folding leaves every other byte alone", "[ascii]") {
  CHECK(ascii_lowered("Content-TYPE") == "content-type");
  CHECK(ascii_lowered("\xC3\x84Z@[") == "\xC3\x84z@[");  // 'Ä' in UTF-8, and the bytes around 'A'..'Z'
  CHECK(ascii_lower('`') == '`');
  CHECK(ascii_upper('{') == '{');
  std::string method = "gEt\xC3\xA4";
  ascii_upper_in_place(method);
  CHECK(method == "GET\xC3\xA4");  // 'ä' in UTF-8 stays
  ascii_lower_in_place(method);
  CHECK(method == "get\xC3\xA4");
}

TEST_CASE("case-insensitive comparison is ASCII only and length-exact", "[ascii]") {
  CHECK(iequals_ascii("Retry-After", "retry-after"));
  CHECK_FALSE(iequals_ascii("Retry-After", "retry-afte"));
  CHECK_FALSE(iequals_ascii("retry-after", "retry-after "));
  CHECK_FALSE(iequals_ascii("\xC3\xA4", "\xC3\x84"));  // 'ä' and 'Ä' differ outside ASCII
  CHECK(istarts_with_ascii("HTTPS://x", "https://"));
  CHECK_FALSE(istarts_with_ascii("http", "https"));
}

TEST_CASE("trim removes only the given white space, from both ends", "[ascii]") {
  CHECK(trim(" \t a b \t ") == "a b");
  CHECK(trim("\r\na\r\n") == "\r\na\r\n");  // HTTP's OWS is space and tab only
  CHECK(trim("\r\n\va\f ", kAsciiSpace) == "a");
  CHECK(trim(" \t ").empty());
  CHECK(trim("").empty());
}

TEST_CASE("the ASCII classes hold their letters and digits only, never a byte above 0x7F", "[ascii]") {
  std::string alpha, digit, hex;
  for (int b = 0; b < 256; ++b) {
    const char c = static_cast<char>(b);
    if (ascii_alpha(c)) alpha += c;
    if (ascii_digit(c)) digit += c;
    if (ascii_hex(c)) hex += c;
  }
  CHECK(alpha == "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz");
  CHECK(digit == "0123456789");
  CHECK(hex == "0123456789ABCDEFabcdef");
}
