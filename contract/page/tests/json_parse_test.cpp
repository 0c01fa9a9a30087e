// parse_json must give what nlohmann::json::parse gives: the same values of the same kinds, and the
// same errors. The checks (and the verdicts of the schema) depend on the kind of a number.
#include "json_parse.hpp"

#include <algorithm>
#include <fstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "entimg/common/prng.hpp"
#include "entimg/common/schema.hpp"
#include "json_access.hpp"

namespace {

using entimg::contract::detail::parse_json;
using entimg::contract::detail::parse_json_dom;
using entimg::contract::detail::to_nlohmann;
using nlohmann::json;

// Equal values and equal kinds all the way down (json's == calls 5u and 5 equal).
bool same(const json& a, const json& b) {
  if (a.type() != b.type()) return false;
  if (a.is_object()) {
    if (a.size() != b.size()) return false;
    for (auto it = a.begin(), jt = b.begin(); it != a.end(); ++it, ++jt)
      if (it.key() != jt.key() || !same(*it, *jt)) return false;
    return true;
  }
  if (a.is_array()) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
      if (!same(a[i], b[i])) return false;
    return true;
  }
  return a == b;
}

const std::vector<std::string> kValidTexts = {
    R"({"count":2,"next":null,"previous":"http://h/x?limit=1","results":[{"id":1,"key":null},{"id":2}]})",
    R"({"a":1,"a":2,"b":[true,false,null]})",  // a duplicate key: the last one wins
    "[0, 1, 18446744073709551615, 18446744073709551616, -1, -9223372036854775808, -9223372036854775809]",
    "[1.0, 1e2, -2.5E-3, 1.7976931348623157e308, 5e-324, 0.1]",
    R"(["\u00e9\ud83d\ude00", "tab\tquote\"slash\/", "", "\u0000"])",
    " \n\t{ \"nested\" : [ [ [ { } ] ] , { \"e\" : [ ] } ] } \r\n",
    "\"a string alone\"",
    "true",
    "null",
    "42",
    R"({"x":{"k":1,"k":{"k":2,"k":3}},"y":[{"a":1,"b":2,"a":3}]})",  // repeated keys, nested
};

}  // namespace

TEST_CASE("parse_json reads valid JSON exactly as nlohmann::json::parse", "[json]") {
  for (const auto& text : kValidTexts) {
    INFO(text);
    CHECK(same(parse_json(text), json::parse(text)));
  }
}

TEST_CASE("parse_json_dom holds what nlohmann::json::parse gives, repeated keys resolved", "[json]") {
  for (const auto& text : kValidTexts) {
    INFO(text);
    const auto parsed = parse_json_dom(text);
    REQUIRE(parsed.document);
    CHECK(same(to_nlohmann(parsed.root), json::parse(text)));
  }
  // The DOM itself keeps one member per key: the last one.
  const auto repeated = parse_json_dom(R"({"a":1,"b":2,"a":3})");
  CHECK(repeated.root.get_object().value().size() == 2);
  CHECK(repeated.root.at_key("a").get_int64().value() == 3);
  // Copies share the document: the root stays valid after the first holder is gone.
  entimg::contract::detail::ParsedJson copy;
  {
    const auto original = parse_json_dom(R"({"results":[{"id":7}]})");
    copy = original;
  }
  CHECK(copy.root.at_pointer("/results/0/id").get_int64().value() == 7);
}

TEST_CASE("parse_json refuses what nlohmann refuses, with nlohmann's message", "[json]") {
  const std::vector<std::string> texts = {
      "",
      "{",
      "[1,]",
      R"({"a":1,})",
      "01",
      "1.",
      "-",
      "nul",
      "\"\\ud800\"",
      "\"\xff\"",
      "{\"a\" 1}",
      "[1] trailing",
      "\"unterminated",
      "{'single': 1}",
      "[1e400x]",
  };
  for (const auto& text : texts) {
    INFO(text);
    std::string expected, got, got_dom;
    try {
      [[maybe_unused]] const json parsed = json::parse(text);
    } catch (const json::exception& e) {
      expected = e.what();
    }
    try {
      [[maybe_unused]] const json parsed = parse_json(text);
    } catch (const json::exception& e) {
      got = e.what();
    }
    try {
      [[maybe_unused]] const auto parsed = parse_json_dom(text);
    } catch (const json::exception& e) {
      got_dom = e.what();
    }
    CHECK_FALSE(expected.empty());
    CHECK(got == expected);
    CHECK(got_dom == expected);
  }
}

TEST_CASE("parse_json: the one documented difference, -0", "[json]") {
  const json parsed = parse_json("-0");
  CHECK(parsed == json::parse("-0"));  // equal as numbers
  CHECK(parsed.dump() == json::parse("-0").dump());
}

TEST_CASE("a hostile number or a hostile parse error stays small", "[json][hostile]") {
  using entimg::contract::detail::parse_error_text;
  const std::string digits(5'000'000, '9');
  // 5 MB of digits: refused before strtod runs over them, with a message of a few dozen bytes.
  CHECK_THROWS_WITH(parse_json_dom("{\"count\":" + digits + "}"),
                    "it holds a number of 5000000 characters (at most 4096 are read)");
  CHECK_THROWS_WITH(parse_json("[" + digits + "]"),
                    "it holds a number of 5000000 characters (at most 4096 are read)");
  // Digits inside a string are not a number.
  CHECK(parse_json("[\"" + digits + "\"]")[0].get<std::string>().size() == digits.size());
  // nlohmann quotes the whole token it read last: an unterminated string of 500,000 bytes.
  try {
    const json accepted = json::parse("\"" + std::string(500'000, 'a'));
    FAIL("nlohmann accepted " << accepted.size());
  } catch (const json::exception& e) {
    const std::string text = parse_error_text(e.what());
    CHECK(text.size() < 500);
    CHECK_THAT(text, Catch::Matchers::Contains("last read: '\"aaaa"));
    CHECK_THAT(text, Catch::Matchers::Contains("… (500001 bytes)'"));
  }
}

// simdjson refuses what nests deeper than the parser allows without anyone scanning the text first; a
// body nested exactly kMaxJsonDepth deep must still read, whatever sits at the bottom.
TEST_CASE("parse_json_dom reads nesting up to kMaxJsonDepth and refuses one level more", "[json]") {
  using entimg::contract::detail::kMaxJsonDepth;
  using entimg::contract::detail::TooDeep;
  const auto arrays = [](std::size_t depth, const std::string& bottom) {
    return std::string(depth, '[') + bottom + std::string(depth, ']');
  };
  const auto objects = [](std::size_t depth, const std::string& bottom) {
    std::string text;
    for (std::size_t i = 0; i < depth; ++i)
      text += "{\"a\":";
    text += bottom;
    return text + std::string(depth, '}');
  };
  for (const std::string& bottom : {std::string(), std::string("1"), std::string("\"x\"")}) {
    INFO("bottom: " << bottom);
    for (const std::string& text :
         {arrays(kMaxJsonDepth, bottom), objects(kMaxJsonDepth - 1, "[" + bottom + "]")})
      CHECK(to_nlohmann(parse_json_dom(text).root) == json::parse(text));
    CHECK_THROWS_AS(parse_json_dom(arrays(kMaxJsonDepth + 1, bottom)), TooDeep);
  }
  CHECK(to_nlohmann(parse_json_dom(objects(kMaxJsonDepth, "1")).root) ==
        json::parse(objects(kMaxJsonDepth, "1")));
  CHECK_THROWS_AS(parse_json_dom(objects(kMaxJsonDepth + 1, "1")), TooDeep);
  // At the limit and read through nlohmann (a repeated key, a number beyond 64 bits): the same.
  const std::string repeated = objects(kMaxJsonDepth - 1, R"({"k":1,"k":2})");
  CHECK(to_nlohmann(parse_json_dom(repeated).root) == json::parse(repeated));
  const std::string big = arrays(kMaxJsonDepth, "18446744073709551616");
  CHECK(to_nlohmann(parse_json_dom(big).root) == json::parse(big));
  // Not JSON and too deep: too deep is what is said.
  CHECK_THROWS_AS(parse_json_dom(std::string(100000, '[') + "x"), TooDeep);
}

TEST_CASE("parse_json_dom finds a repeated key wherever it sits in an object of any size", "[json]") {
  // 40 keys whose size and ends are alike (k00a ... k39a share a hash bit often), the repeat placed early,
  // at the 32-key edge and late.
  for (const std::size_t repeat_at : {1U, 31U, 32U, 39U}) {
    std::string text = "{";
    for (std::size_t i = 0; i < 40; ++i)
      text += "\"k" + std::to_string(10 + i) + "a\":" + std::to_string(i) + ",";
    text += "\"k" + std::to_string(10 + repeat_at) + "a\":\"last\"}";
    INFO(text);
    const auto parsed = parse_json_dom(text);
    CHECK(parsed.repeated_key == "k" + std::to_string(10 + repeat_at) + "a");
    CHECK(to_nlohmann(parsed.root) == json::parse(text));
  }
  std::string distinct = "{";
  for (std::size_t i = 0; i < 1000; ++i)
    distinct += std::string(i == 0 ? "" : ",") + "\"k" + std::to_string(i) + "\":" + std::to_string(i);
  CHECK_FALSE(parse_json_dom(distinct + "}").repeated_key.has_value());
}

namespace {

// The first key an object of the text repeats, in the order of the text (as a reader that keeps every
// object's keys so far would find it; "" is a key like any other), or nullopt. Objects of the texts below
// have at most 32 keys. Read through nlohmann's parse callback (quadratic on large containers, fine for
// these), not the SAX reader the parse itself uses.
std::optional<std::string> first_repeat(const std::string& text) {
  std::vector<std::vector<std::string>> open;  // the keys of each object being read
  std::optional<std::string> found;
  [[maybe_unused]] const json read = json::parse(text, [&](int, json::parse_event_t event, json& parsed) {
    if (event == json::parse_event_t::object_start) open.emplace_back();
    if (event == json::parse_event_t::object_end) open.pop_back();
    if (event == json::parse_event_t::key) {
      const auto key = parsed.get<std::string>();
      if (!found && std::find(open.back().begin(), open.back().end(), key) != open.back().end()) found = key;
      open.back().push_back(key);
    }
    return true;
  });
  return found;
}

// A page body as a server might send it, odd on purpose: records with keys of their own (some as long as a
// record's and one letter off), keys repeated, missing or nested, items that are no object, and now and then
// a body whose results are not where the records are looked for.
std::string random_body(entimg::common::Pcg32& rng) {
  static const std::vector<std::string> kKeys = [] {  // the record schema's 15 names
    std::ifstream file(entimg::common::schema_dir() / "image-record.schema.json");
    return json::parse(file).at("required").get<std::vector<std::string>>();
  }();
  static const std::vector<std::string> kOthers = {"ie",     "idx",       "Id",        "imagE", "fil",
                                                   "filf",   "mime_typf", "file_sizf", "x",     "",
                                                   "entitx", "alu",       "kez",       "orders"};
  const auto scalar = [&rng]() -> std::string {
    switch (rng.below(5)) {
      case 0:
        return std::to_string(rng.between(-5, 100000));
      case 1:
        return "\"filer_public/ab/cd/" + std::to_string(rng.below(1000)) + ".jpg\"";
      case 2:
        return "null";
      case 3:
        // Beyond 64 bits: simdjson refuses the text, which is then read through nlohmann.
        return rng.below(2) ? "true" : rng.below(8) ? "\"\"" : "99999999999999999999";
      default:
        return "\"http://h/media/x" + std::to_string(rng.below(100)) + ".png\"";
    }
  };
  const auto value = [&]() -> std::string {
    switch (rng.below(12)) {
      case 0:
        return rng.below(3) ? "{\"k\":1,\"j\":[{}]}" : "{\"k\":1,\"k\":2}";
      case 1:
        return rng.below(3) ? "[1,{\"a\":null}]" : "[{\"a\":1,\"b\":2,\"a\":3}]";
      default:
        return scalar();
    }
  };
  const auto record = [&]() -> std::string {
    switch (rng.below(20)) {
      case 0:
        return scalar();
      case 1:
        return "[" + value() + "]";
      default:
        break;
    }
    std::vector<std::string> keys = kKeys;
    if (rng.below(3) == 0)  // shuffled
      for (std::size_t i = keys.size(); i > 1; --i)
        std::swap(keys[i - 1], keys[rng.below(static_cast<std::uint32_t>(i))]);
    if (rng.below(4) == 0) keys.erase(keys.begin() + rng.below(static_cast<std::uint32_t>(keys.size())));
    if (rng.below(5) == 0)
      keys.insert(keys.begin() + rng.below(static_cast<std::uint32_t>(keys.size() + 1)),
                  kOthers[rng.below(static_cast<std::uint32_t>(kOthers.size()))]);
    if (rng.below(12) == 0)  // a key of the record again
      keys.insert(keys.begin() + rng.below(static_cast<std::uint32_t>(keys.size() + 1)),
                  keys[rng.below(static_cast<std::uint32_t>(keys.size()))]);
    std::string out = "{";
    for (const std::string& key : keys)
      out += (out.size() > 1 ? "," : "") + ("\"" + key + "\":") + value();
    return out + "}";
  };
  std::string results = "[";
  const std::uint32_t n = rng.below(30);
  for (std::uint32_t i = 0; i < n; ++i)
    results += (i ? "," : "") + record();
  results += "]";
  switch (rng.below(16)) {
    case 0:
      return results;  // an array alone
    case 1:
      return R"({"count":1,"results":)" + results + R"(,"results":[]})";  // results twice
    case 2:
      return R"({"count":1,"results":{"id":1}})";
    case 3:
      return R"({"count":1,"next":null,"previous":{"a":1,"a":2},"results":)" + results + "}";
    default:
      return R"({"count":)" + std::to_string(n) + R"(,"next":null,"previous":null,"results":)" + results +
             "}";
  }
}

}  // namespace

TEST_CASE(
    "parse_json_dom's records are what member() finds in results, and its repeated key the first a "
    "plain reading finds, on seeded random bodies",
    "[json]") {
  const std::uint64_t seed = GENERATE(as<std::uint64_t>(), 1, 2, 3);
  INFO("seed " << seed << " (contract_page_tests \"parse_json_dom's records are what member() finds*\")");
  entimg::common::Pcg32 rng(seed, 47);
  int kept_pages = 0;
  for (int round = 0; round < 1500; ++round) {
    const std::string text = random_body(rng);
    INFO("round " << round << ": " << text);
    const auto parsed = parse_json_dom(text);
    REQUIRE(parsed.repeated_key == first_repeat(text));
    // What member() and the items read from the DOM simdjson holds (after a repeat, nlohmann's reading).
    const simdjson::dom::element root = parsed.root;
    std::vector<simdjson::dom::element> items;
    if (root.is_object())
      if (const auto results = entimg::contract::detail::member(root, "results");
          results && results->is_array()) {
        const simdjson::dom::array array = results->get_array().value_unsafe();  // a copy: see member()
        for (const simdjson::dom::element item : array)
          items.push_back(item);
      }
    // Kept by the parse, or found as the range reaches them (for items too many for the text's size).
    REQUIRE((parsed.records.empty() || parsed.records.size() == items.size()));
    kept_pages += !parsed.records.empty() ? 1 : 0;
    std::vector<entimg::contract::RecordMembers> records;
    if (!items.empty()) {
      const simdjson::dom::array array =
          entimg::contract::detail::member(root, "results")->get_array().value_unsafe();
      for (const auto& record : entimg::contract::detail::RecordRange(parsed.records, array, items.size()))
        records.push_back(record);
    }
    REQUIRE(records.size() == items.size());
    for (std::size_t i = 0; i < items.size(); ++i) {
      const auto& found = records[i];
      CHECK(same(to_nlohmann(found.record), to_nlohmann(items[i])));
      const auto member_is = [&](const std::optional<simdjson::dom::element>& got, const char* key) {
        const auto expected = entimg::contract::detail::member(items[i], key);
        INFO("record " << i << ", " << key);
        REQUIRE(got.has_value() == expected.has_value());
        if (got) CHECK(same(to_nlohmann(*got), to_nlohmann(*expected)));
      };
      for (std::size_t k = 0; k < entimg::contract::kRecordKeys.size(); ++k)
        member_is(found.member(k), std::string(entimg::contract::kRecordKeys[k]).c_str());
      member_is(found.id(), "id");
      member_is(found.mime_type(), "mime_type");
      // whole: an object whose every key is a record key (each once: the parse leaves no repeated key).
      bool only_record_keys = items[i].type() == simdjson::dom::element_type::OBJECT;
      if (only_record_keys)
        for (const auto field : simdjson::dom::object(items[i].get_object().value_unsafe()))
          only_record_keys = only_record_keys && std::find(entimg::contract::kRecordKeys.begin(),
                                                           entimg::contract::kRecordKeys.end(),
                                                           field.key) != entimg::contract::kRecordKeys.end();
      CHECK(found.whole == only_record_keys);
    }
  }
  CHECK(kept_pages > 500);  // most bodies have their records kept: both paths are exercised
}

TEST_CASE(
    "a parsed body's document stays its own while later bodies are parsed, and is used again once "
    "dropped",
    "[json]") {
  // Documents are kept for reuse when their pages go: one still held must never be handed out again.
  const auto body = [](int i) {
    return R"({"count":)" + std::to_string(i) + R"(,"results":[{"id":)" + std::to_string(i) +
           R"(,"file":"f)" + std::string(static_cast<std::size_t>(i) * 97, 'x') + R"("}]})";
  };
  std::vector<entimg::contract::detail::ParsedJson> held;
  for (int round = 0; round < 3; ++round) {
    for (int i = 0; i < 40; ++i) {
      held.push_back(parse_json_dom(body(i)));
      if (i % 3 == 0) held.erase(held.begin() + (i % static_cast<int>(held.size())));  // some go early
    }
    for (const auto& parsed : held) {
      const json value = to_nlohmann(parsed.root);
      const int i = value.at("count").get<int>();
      INFO("round " << round << ", body " << i);
      CHECK(value == json::parse(body(i)));
      REQUIRE(parsed.records.size() == 1);
      CHECK(to_nlohmann(*parsed.records[0].file()) == json::parse(body(i))["results"][0]["file"]);
    }
    held.resize(held.size() / 2);
  }
}

TEST_CASE("a huge results array of tiny items keeps no members: they are found item by item",
          "[json][hostile]") {
  // 264 bytes of members for each 2-byte item would make a 64 MiB body cost gigabytes.
  for (const std::string item : {"0", "{}", "[]", R"({"id":1})"}) {
    std::string text = R"({"count":1,"results":[)";
    constexpr std::size_t kItems = 300000;
    for (std::size_t i = 0; i < kItems; ++i)
      text += (i ? "," : "") + item;
    text += "]}";
    INFO(item);
    const auto parsed = parse_json_dom(text);
    CHECK(parsed.records.empty());
    const simdjson::dom::array array =
        entimg::contract::detail::member(parsed.root, "results")->get_array().value_unsafe();
    std::size_t seen = 0, ids = 0;
    for (const auto& record : entimg::contract::detail::RecordRange(parsed.records, array, kItems)) {
      ++seen;
      ids += record.id() ? 1U : 0U;
    }
    CHECK(seen == kItems);
    CHECK(ids == (item.starts_with("{\"id") ? kItems : 0));
  }
}

TEST_CASE("the documents kept for reuse take at most 16 MiB of text together, none of them over 4 MiB",
          "[json]") {
  using entimg::contract::detail::kept_document_text;
  const auto body = [](std::size_t bytes) { return R"({"results":[")" + std::string(bytes, 'x') + R"("]})"; };
  {
    std::vector<entimg::contract::detail::ParsedJson> held;
    for (int i = 0; i < 64; ++i)
      held.push_back(parse_json_dom(body(300000)));  // each in a document for 512 KiB: 32 MiB in all
  }
  CHECK(kept_document_text() > 0);
  CHECK(kept_document_text() <= (std::size_t{16} << 20));
  std::vector<entimg::contract::detail::ParsedJson> held;
  while (kept_document_text() > 0)  // every kept document taken
    held.push_back(parse_json_dom(body(10)));
  { const auto big = parse_json_dom(body(5u << 20)); }  // too big to keep, though there is room
  CHECK(kept_document_text() == 0);
}

TEST_CASE("last_result is the last item of results, whether the parse kept the records or not", "[json]") {
  const std::string alt(150, 'a');  // records of 170 bytes: kept, however many
  for (const std::size_t items : {std::size_t{1}, std::size_t{7}, std::size_t{2000}}) {
    for (const bool tiny : {false, true}) {  // tiny items: too many for the text, none kept
      std::string text = R"({"count":1,"results":[)";
      for (std::size_t i = 0; i < items; ++i)
        text += (i ? "," : "") +
                (tiny ? std::to_string(i) : R"({"id":)" + std::to_string(i) + R"(,"alt":")" + alt + "\"}");
      text += "]}";
      entimg::contract::Page page;
      page.exchange.status = 200;
      entimg::contract::set_body(page, text);
      const auto results = entimg::contract::detail::results_array(page);
      REQUIRE(results);
      INFO(items << " items, " << (tiny ? "tiny" : "records"));
      CHECK(page.json_records.empty() == (tiny && items > 1024));
      const json expected = tiny ? json(items - 1) : json{{"id", items - 1}, {"alt", alt}};
      CHECK(to_nlohmann(entimg::contract::detail::last_result(page, *results)) == expected);
    }
  }
}
