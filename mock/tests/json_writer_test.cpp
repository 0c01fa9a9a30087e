#include "json_writer.hpp"

#include <catch2/catch.hpp>
#include <iterator>

#include "entimg/common/prng.hpp"

using namespace entimg::mock::detail;

TEST_CASE("append_json_string escapes as Python's json with ensure_ascii=False, plus U+2028/2029", "[json]") {
  std::string out;
  append_json_string(out, "a\"b\\c\nd\te\x01 Я \xE2\x80\xA8\xE2\x80\xA9 \x7F");
  CHECK(out == "\"a\\\"b\\\\c\\nd\\te\\u0001 Я \\u2028\\u2029 \x7F\"");
}

TEST_CASE("JsonWriter writes compact JSON", "[json]") {
  std::string out;
  JsonWriter w(out);
  w.begin_object();
  w.key("count");
  w.integer(2);
  w.key("next");
  w.null();
  w.key("results");
  w.begin_array();
  w.end_array();
  w.key("x");
  w.begin_array();
  w.string("a");
  w.raw_number("99999999999999999999");
  w.end_array();
  w.end_object();
  CHECK(out == R"({"count":2,"next":null,"results":[],"x":["a",99999999999999999999]})");
}

TEST_CASE("JsonWriter with an indent matches Python's json.dumps(indent=N, separators=(',', ': '))",
          "[json]") {
  std::string out;
  JsonWriter w(out, 4);
  w.begin_object();
  w.key("a");
  w.begin_array();
  w.integer(1);
  w.begin_object();
  w.key("b");
  w.null();
  w.end_object();
  w.end_array();
  w.key("e");
  w.begin_array();
  w.end_array();
  w.end_object();
  CHECK(
      out ==
      "{\n    \"a\": [\n        1,\n        {\n            \"b\": null\n        }\n    ],\n    \"e\": []\n}");
}

namespace {
// Python's json.dumps(s, ensure_ascii=False) plus DRF's U+2028/2029 escapes, a byte at a time: the
// reference the word-at-a-time writer must equal.
std::string reference_json_string(std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out = "\"";
  for (std::size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c == '\n' || c == '\r' || c == '\t' || c == '\b' || c == '\f') {
      out += '\\';
      out += c == '\n' ? 'n' : c == '\r' ? 'r' : c == '\t' ? 't' : c == '\b' ? 'b' : 'f';
    } else if (c < 0x20) {
      out += "\\u00";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    } else if (c == 0xE2 && s.substr(i + 1, 1) == "\x80" &&
               (s.substr(i + 2, 1) == "\xA8" || s.substr(i + 2, 1) == "\xA9")) {
      out += s[i + 2] == '\xA8' ? "\\u2028" : "\\u2029";
      i += 2;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}
}  // namespace

TEST_CASE("append_json_string equals a byte-at-a-time reference on seeded random text", "[json]") {
  // Escapes anywhere in a word of eight, at its edges, U+2028 cut across two words, long plain runs.
  const std::uint64_t seed = GENERATE(as<std::uint64_t>(), 1, 2, 3);
  INFO("seed " << seed << " (mock_tests \"append_json_string equals*\")");
  entimg::common::Pcg32 rng(seed, 20);
  const std::string_view pieces[] = {"a",
                                     "Я",
                                     " ",
                                     "\"",
                                     "\\",
                                     "\n",
                                     "\x01",
                                     "\x1f",
                                     "\x7f",
                                     "\xE2",
                                     "\x80",
                                     "\xA8",
                                     "\xA9",
                                     "\xE2\x80\xA8",
                                     "\xE2\x80\xA9",
                                     "\xE2\x80\x94",
                                     "0123456789abcdef",
                                     "\t"};
  for (int round = 0; round < 2000; ++round) {
    std::string text;
    const std::uint32_t length = rng.below(24);
    for (std::uint32_t k = 0; k < length; ++k)
      text += pieces[rng.below(static_cast<std::uint32_t>(std::size(pieces)))];
    std::string out = "x";
    append_json_string(out, text);
    REQUIRE(out == "x" + reference_json_string(text));
  }
}
