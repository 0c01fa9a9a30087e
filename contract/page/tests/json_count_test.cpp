// The value count that bounds what a page's parse builds (kMaxJsonValues): exact for JSON texts, and a text
// over it refused before any parser reads it.
#include <string>

#include <catch2/catch.hpp>

#include "json_parse.hpp"

namespace {

using entimg::contract::detail::check_value_count;
using entimg::contract::detail::count_values;
using entimg::contract::detail::kMaxJsonValues;
using entimg::contract::detail::parse_json;
using entimg::contract::detail::parse_json_dom;
using entimg::contract::detail::TooManyValues;

// An array of `items` values `item` (each one value), set apart by `separator`: items + 1 values.
std::string array_of(std::size_t items, const std::string& item, const std::string& separator = ",") {
  std::string text = "[";
  for (std::size_t i = 0; i < items; ++i)
    text += (i == 0 ? "" : separator) + item;
  return text + "]";
}

}  // namespace

TEST_CASE("count_values counts a JSON text's values, keys aside", "[json]") {
  CHECK(count_values("[]").values == 1);
  CHECK(count_values("[[],[],{}]").values == 4);
  CHECK(count_values(R"({"a":1,"b":"x","c":[true,null,-2.5e3]})").values == 7);
  CHECK(count_values(R"( { "k\"ey" : "v,a:l[u]e" , "e" : { } } )").values == 3);
  CHECK(count_values("\"alone\"").values == 1);
  CHECK(count_values("12345").values == 1);
  CHECK(count_values("[[],[],{}]").structurals == 10);
}

TEST_CASE("a body over kMaxJsonValues values is refused before it is parsed, one at the bound is read",
          "[json][hostile]") {
  // Spaces between the items: a text this long may hold more than the bound, so it is counted.
  const std::string at_bound = array_of(kMaxJsonValues - 1, "0", ", ");
  CHECK(parse_json_dom(at_bound).root.get_array().size() == kMaxJsonValues - 1);
  const std::string over = array_of(kMaxJsonValues, "[]");  // 20 bytes of gzip per thousand
  const std::string message =
      "it holds more than 1000000 values (arrays, objects, strings, numbers, literals: "
      "at most 1000000 are read)";
  CHECK_THROWS_AS(parse_json_dom(over), TooManyValues);
  CHECK_THROWS_WITH(parse_json_dom(over), message);
  CHECK_THROWS_WITH(parse_json(over), message);
  // Keys are not values: an object of a million members holds a million values and one.
  std::string object = array_of(kMaxJsonValues, "\"k\":0");
  object.front() = '{';
  object.back() = '}';
  CHECK_THROWS_WITH(parse_json_dom(object), message);
  object.pop_back();
  object.resize(object.rfind(','));  // the last member gone: the object and 999,999 members
  CHECK_NOTHROW(check_value_count(object + "}"));
  // Not JSON, but every comma would be indexed by simdjson's first stage.
  CHECK_THROWS_WITH(parse_json_dom(std::string(4 * kMaxJsonValues + 1, ',')),
                    "it holds more than 4000000 brackets, commas and colons (at most 4000000 are read)");
}
