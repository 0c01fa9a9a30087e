#include "json_writer.hpp"

#include <catch2/catch.hpp>

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
