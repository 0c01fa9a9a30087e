#include "entimg/common/schema.hpp"
#include "entimg/common/prng.hpp"

#include "ecma_regex.hpp"      // common/src: the pattern engine behind the validator
#include "schema_program.hpp"  // and the compiled checks
#include "uri_format.hpp"      // and their "uri" format

#include <algorithm>
#include <array>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h>

#include <simdjson.h>
#include <catch2/catch.hpp>

namespace fs = std::filesystem;
using entimg::common::SchemaError;
using entimg::common::SchemaValidator;
using nlohmann::json;

namespace {

// The cases sit next to this file; ajv_verdicts.js runs ajv-cli on the same ones.
const fs::path kCases = fs::path(__FILE__).parent_path() / "schema_cases";

json read_json(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  REQUIRE(in);
  return json::parse(in);
}

std::vector<fs::path> case_files(const std::string& suite, const std::string& verdict) {
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(kCases / suite / verdict)) {
    if (entry.path().extension() == ".json") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::string describe(const std::vector<SchemaError>& errors) {
  std::string out;
  for (const auto& e : errors)
    out += "\n  " + (e.pointer.empty() ? "(root)" : e.pointer) + ": " + e.message;
  return out;
}

// A scratch directory for schemas written by a test; removed on scope exit.
class ScratchDir {
 public:
  explicit ScratchDir(const std::string& name)
      : path_(fs::temp_directory_path() / ("entimg-schema-test-" + name + "-" + std::to_string(::getpid()))) {
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~ScratchDir() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  fs::path write(const std::string& name, const std::string& text) const {
    std::ofstream(path_ / name, std::ios::binary) << text;
    return path_ / name;
  }

 private:
  fs::path path_;
};

std::string load_error(const fs::path& file) {
  try {
    SchemaValidator::from_file(file);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "(no exception)";
}

void check_suite(const std::string& suite, const std::string& schema_file) {
  const auto validator = SchemaValidator::from_file(entimg::common::schema_dir() / schema_file);
  for (const auto& file : case_files(suite, "valid")) {
    const json doc = read_json(file);
    INFO(suite << "/valid/" << file.filename().string() << describe(validator.validate(doc)));
    CHECK(validator.is_valid(doc));
    CHECK(validator.validate(doc).empty());
  }
  const json pointers = read_json(kCases / suite / "expected-pointers.json");
  std::size_t invalid_count = 0;
  for (const auto& file : case_files(suite, "invalid")) {
    ++invalid_count;
    const json doc = read_json(file);
    const auto errors = validator.validate(doc);
    const std::string name = file.filename().string();
    INFO(suite << "/invalid/" << name << describe(errors));
    CHECK_FALSE(validator.is_valid(doc));
    REQUIRE_FALSE(errors.empty());
    REQUIRE(pointers.contains(name));
    // Every violation sits where the case breaks its one rule: the case breaks nothing else.
    for (const auto& e : errors)
      CHECK(e.pointer == pointers[name].get<std::string>());
  }
  CHECK(pointers.size() == invalid_count);  // no stale entries
}

std::string read_text(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  REQUIRE(in);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// is_valid on simdjson's DOM of text; the text must be JSON simdjson reads.
bool simdjson_verdict(const SchemaValidator& validator, const std::string& text) {
  simdjson::dom::parser parser;
  const auto doc = parser.parse(text);
  INFO("simdjson: " << simdjson::error_message(doc.error()));
  REQUIRE(doc.error() == simdjson::SUCCESS);
  return validator.is_valid(doc.value_unsafe());
}

// Checks that the validator gives text the same verdict through simdjson's DOM as through nlohmann's, that
// this verdict is `expected`, and that valijson (when the validator runs compiled checks) says the same.
void check_verdict(const SchemaValidator& validator, const std::string& text, bool expected) {
  INFO(validator.source().filename().string() << " on " << text);
  const bool through_nlohmann = validator.is_valid(json::parse(text));
  CHECK(simdjson_verdict(validator, text) == through_nlohmann);
  CHECK(through_nlohmann == expected);
  if (validator.compiled_program() != nullptr) {
    const auto reference = SchemaValidator::from_file(validator.source(), SchemaValidator::Engine::valijson);
    INFO("valijson");
    CHECK(reference.is_valid(json::parse(text)) == expected);
    CHECK(simdjson_verdict(reference, text) == expected);
  }
}

}  // namespace

TEST_CASE("schema_dir finds the schema files, and the environment overrides it", "[schema]") {
  CHECK(fs::exists(entimg::common::schema_dir() / "image-record.schema.json"));
  CHECK(fs::exists(entimg::common::schema_dir() / "page.schema.json"));
  ::setenv("ENTIMG_SCHEMA_DIR", "/elsewhere/schema", 1);
  CHECK(entimg::common::schema_dir() == fs::path("/elsewhere/schema"));
  ::setenv("ENTIMG_SCHEMA_DIR", "", 1);
  CHECK(entimg::common::schema_dir() == fs::path(ENTIMG_SCHEMA_DIR));
  ::unsetenv("ENTIMG_SCHEMA_DIR");
}

TEST_CASE("every record case gets the verdict of its folder", "[schema]") {
  check_suite("record", "image-record.schema.json");
}

TEST_CASE("every page case gets the verdict of its folder", "[schema]") {
  check_suite("page", "page.schema.json");
}

TEST_CASE("every case gets the same verdict through simdjson's DOM as through nlohmann's", "[schema]") {
  for (const auto& [suite, schema_file] :
       {std::pair<std::string, std::string>("record", "image-record.schema.json"),
        std::pair<std::string, std::string>("page", "page.schema.json")}) {
    const auto validator = SchemaValidator::from_file(entimg::common::schema_dir() / schema_file);
    for (const std::string verdict : {"valid", "invalid"}) {
      for (const auto& file : case_files(suite, verdict))
        check_verdict(validator, read_text(file), verdict == "valid");
    }
  }
}

// The texts below parse alike in simdjson and nlohmann: 1.0 and 1e2 are doubles in both, 1 and -0
// integers (-0 is int64 to simdjson, a signed integer to nlohmann). They part on integers beyond 64 bits
// (simdjson refuses the text, nlohmann reads a double; callers fall back to nlohmann) and on repeated keys
// (see "simdjson's DOM finds members whatever their order").
TEST_CASE("simdjson's DOM and nlohmann's agree on numbers", "[schema]") {
  ScratchDir dir("simdjson-numbers");
  const auto integer = SchemaValidator::from_file(dir.write("i.schema.json", R"({"type": "integer"})"));
  for (const char* text : {"1", "-1", "0", "-0", "9223372036854775807", "9223372036854775808",
                           "18446744073709551615", "-9223372036854775808"})
    check_verdict(integer, text, true);
  // Strong types: a number written with a fraction or an exponent is a double, even 1.0.
  for (const char* text : {"1.0", "-0.0", "1e2", "1E0", "0.5", "\"1\"", "true", "null", "[1]", "{}"})
    check_verdict(integer, text, false);

  const auto number = SchemaValidator::from_file(dir.write("n.schema.json", R"({"type": "number"})"));
  for (const char* text : {"1", "1.0", "-0", "1.5e-400", "1e308", "18446744073709551615"})
    check_verdict(number, text, true);
  check_verdict(number, "\"1\"", false);

  // valijson reads integers as int64_t, and nlohmann's adapter casts an unsigned one, so above INT64_MAX
  // it would wrap negative (18446744073709551615 as -1, below a minimum of 0; ajv says 1.8e19). Both
  // engines compare such an integer by its value.
  const auto natural =
      SchemaValidator::from_file(dir.write("nat.schema.json", R"({"type": "integer", "minimum": 0})"));
  check_verdict(natural, "9223372036854775807", true);
  check_verdict(natural, "9223372036854775808", true);
  check_verdict(natural, "18446744073709551615", true);
  check_verdict(natural, "-1", false);
  const auto negative = SchemaValidator::from_file(
      dir.write("neg.schema.json", R"({"type": "integer", "minimum": -9223372036854775808, "maximum": -1})"));
  check_verdict(negative, "-9223372036854775808", true);
  check_verdict(negative, "18446744073709551615", false);  // not -1
  check_verdict(negative, "-1.0", false);
  check_verdict(negative, "0", false);
  const auto bounded = SchemaValidator::from_file(
      dir.write("b.schema.json", R"({"type": "number", "exclusiveMinimum": 0.5, "maximum": 2})"));
  check_verdict(bounded, "1", true);
  check_verdict(bounded, "2.0", true);
  check_verdict(bounded, "0.5", false);
  check_verdict(bounded, "2.5", false);
  const auto multiple =
      SchemaValidator::from_file(dir.write("m.schema.json", R"({"type": "integer", "multipleOf": 3})"));
  check_verdict(multiple, "9", true);
  check_verdict(multiple, "10", false);
}

TEST_CASE("simdjson's DOM and nlohmann's agree on strings, booleans and null", "[schema]") {
  ScratchDir dir("simdjson-strings");
  // maxLength counts code points: e-acute, euro and an emoji are 2, 3 and 4 bytes of UTF-8.
  const auto short_string = SchemaValidator::from_file(
      dir.write("s.schema.json", R"({"type": "string", "minLength": 2, "maxLength": 3})"));
  check_verdict(short_string, "\"ab\"", true);
  check_verdict(short_string, "\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"", true);
  check_verdict(short_string, "\"\\u00e9\\u20ac\\ud83d\\ude00\"", true);
  check_verdict(short_string, "\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80x\"", false);
  check_verdict(short_string, "\"abcd\"", false);
  check_verdict(short_string, "\"a\"", false);
  check_verdict(short_string, "12", false);
  check_verdict(short_string, "[\"ab\"]", false);
  // An escaped NUL is part of the string: the pattern sees "d" after it, and maxLength counts what follows
  // it (valijson's own count stops at the NUL; schema.cpp gives it ours).
  const auto patterned = SchemaValidator::from_file(
      dir.write("p.schema.json", R"({"type": "string", "maxLength": 10, "pattern": "^a[^x]*d$"})"));
  check_verdict(patterned, "\"a\\u0000d\"", true);
  check_verdict(patterned, "\"abcd\"", true);
  check_verdict(patterned, "\"abc\"", false);
  check_verdict(patterned, "\"a\\u0000bbbbbbbbbd\"", false);  // 12 characters
  std::string eleven = "\"a";                                 // 11 code points, 20 bytes
  for (int i = 0; i < 9; ++i)
    eleven += "\xc3\xa9";
  check_verdict(patterned, eleven + "d\"", false);

  const auto flag = SchemaValidator::from_file(dir.write("f.schema.json", R"({"type": "boolean"})"));
  check_verdict(flag, "true", true);
  check_verdict(flag, "false", true);
  check_verdict(flag, "\"true\"", false);
  check_verdict(flag, "0", false);
  const auto nothing =
      SchemaValidator::from_file(dir.write("z.schema.json", R"({"type": ["null", "integer"]})"));
  check_verdict(nothing, "null", true);
  check_verdict(nothing, "\"\"", false);
  check_verdict(nothing, "{}", false);
  check_verdict(nothing, "[]", false);
  const auto choice = SchemaValidator::from_file(
      dir.write("e.schema.json", R"({"enum": ["a", 1, 2.5, null, true, [1, "x"], {"k": [null]}]})"));
  for (const char* text : {"\"a\"", "1", "2.5", "null", "true", "[1, \"x\"]", "{\"k\": [null]}"})
    check_verdict(choice, text, true);
  for (const char* text : {"\"b\"", "2", "false", "[\"x\", 1]", "{\"k\": []}", "{\"k\": [null], \"j\": 1}"})
    check_verdict(choice, text, false);
}

TEST_CASE("simdjson's DOM and nlohmann's agree on arrays and objects", "[schema]") {
  ScratchDir dir("simdjson-containers");
  const auto nested = SchemaValidator::from_file(dir.write("n.schema.json", R"({
    "type": "array",
    "items": {"type": "array", "items": {"type": "object", "required": ["x"],
                                         "properties": {"x": {"type": "integer"}},
                                         "additionalProperties": {"type": "string"}}}
  })"));
  check_verdict(nested, "[]", true);
  check_verdict(nested, "[[], [{\"x\": 1}]]", true);
  check_verdict(nested, "[[{\"y\": \"a\", \"x\": -2}, {\"x\": 3}]]", true);
  check_verdict(nested, "[[{\"x\": 1}], [{\"x\": 1.0}]]", false);
  check_verdict(nested, "[[{\"x\": 1, \"y\": 2}]]", false);
  check_verdict(nested, "[[{\"y\": \"a\"}]]", false);
  check_verdict(nested, "[[{}]]", false);
  check_verdict(nested, "[{}]", false);
  check_verdict(nested, "[[[]]]", false);
  check_verdict(nested, "{}", false);

  const auto empty_object = SchemaValidator::from_file(dir.write(
      "eo.schema.json", R"({"type": "object", "maxProperties": 0, "additionalProperties": false})"));
  check_verdict(empty_object, "{}", true);
  check_verdict(empty_object, "[]", false);
  check_verdict(empty_object, "{\"a\": null}", false);
  const auto empty_array =
      SchemaValidator::from_file(dir.write("ea.schema.json", R"({"type": "array", "maxItems": 0})"));
  check_verdict(empty_array, "[]", true);
  check_verdict(empty_array, "{}", false);
  check_verdict(empty_array, "[[]]", false);
  const auto some = SchemaValidator::from_file(
      dir.write("s.schema.json", R"({"type": ["array", "object"], "minItems": 2, "minProperties": 2})"));
  check_verdict(some, "[1, 2]", true);
  check_verdict(some, "{\"a\": 1, \"b\": 2}", true);
  check_verdict(some, "[1]", false);
  check_verdict(some, "{\"a\": 1}", false);
  const auto unique = SchemaValidator::from_file(dir.write("u.schema.json", R"({"uniqueItems": true})"));
  check_verdict(unique, "[1, 2, \"1\", [1], {\"a\": 1}, {\"a\": 2}]", true);
  check_verdict(unique, "[1, 2, 1]", false);
  check_verdict(unique, "[1, 1.0]", false);  // equal as numbers
  check_verdict(unique, "[[1, {}], [1, {}]]", false);
  check_verdict(unique, "[{\"a\": 1, \"b\": 2}, {\"b\": 2, \"a\": 1}]", false);
  const auto tuple = SchemaValidator::from_file(dir.write(
      "t.schema.json",
      R"({"items": [{"type": "integer"}, {"type": "string"}], "additionalItems": {"type": "null"}})"));
  check_verdict(tuple, "[1, \"a\", null, null]", true);
  check_verdict(tuple, "[1, \"a\", null, 2]", false);
  check_verdict(tuple, "[\"a\", 1]", false);
}

TEST_CASE("simdjson's DOM finds members whatever their order", "[schema]") {
  ScratchDir dir("simdjson-keys");
  const auto ordered = SchemaValidator::from_file(dir.write("o.schema.json", R"({
    "type": "object", "required": ["a", "b", "c"], "additionalProperties": false,
    "properties": {"a": {"type": "integer"}, "b": {"type": "string"}, "c": {"type": "null"}},
    "dependencies": {"b": ["c"]}
  })"));
  check_verdict(ordered, R"({"a": 1, "b": "x", "c": null})", true);
  check_verdict(ordered, R"({"c": null, "b": "x", "a": 1})", true);
  check_verdict(ordered, R"({"c": null, "b": "x", "a": "1"})", false);
  check_verdict(ordered, R"({"c": null, "a": 1})", false);
  check_verdict(ordered, R"({"c": null, "b": "x", "a": 1, "d": 0})", false);
  check_verdict(ordered, R"({"aa": "1", "c": null, "b": "x", "a": 1})", false);
  check_verdict(ordered, R"({"c": null, "b": "x", "A": 1})", false);
  const auto record = SchemaValidator::from_file(entimg::common::schema_dir() / "image-record.schema.json");
  const json typical = read_json(kCases / "record" / "valid" / "typical.json");
  std::string reversed;  // the members in reverse alphabetical order (nlohmann iterates them sorted)
  for (const auto& [key, value] : typical.items())
    reversed = json(key).dump() + ":" + value.dump() + (reversed.empty() ? "" : ",") + reversed;
  check_verdict(record, "{" + reversed + "}", true);

  // Repeated keys are where the two part: nlohmann's parser keeps the last member, simdjson's DOM every
  // one, and the adapter shows valijson the DOM as it is (callers take such texts through nlohmann).
  const auto map = SchemaValidator::from_file(dir.write("m.schema.json", R"({
    "type": "object", "properties": {"a": {"type": "integer"}}, "additionalProperties": {"type": "string"}
  })"));
  const std::string repeated = R"({"a": "x", "b": 1, "a": 1, "b": "y"})";
  CHECK(map.is_valid(json::parse(repeated)));
  CHECK_FALSE(simdjson_verdict(map, repeated));
}

TEST_CASE("errors say where, what was expected and what came", "[schema]") {
  const auto page = SchemaValidator::from_file(entimg::common::schema_dir() / "page.schema.json");
  const json doc = read_json(kCases / "page" / "invalid" / "results_item_bad_file.json");
  const auto errors = page.validate(doc);
  REQUIRE(errors.size() == 1);
  CHECK(errors[0].pointer == "/results/1/file");
  CHECK_THAT(errors[0].message,
             Catch::Contains("pattern") && Catch::Contains("filer_public/2020/01/02/img_2.jpg"));

  const auto record = SchemaValidator::from_file(entimg::common::schema_dir() / "image-record.schema.json");
  const auto extra = record.validate(read_json(kCases / "record" / "invalid" / "extra_property.json"));
  REQUIRE(extra.size() == 1);
  CHECK_THAT(extra[0].message, Catch::Contains("'url'"));
  const auto missing = record.validate(read_json(kCases / "record" / "invalid" / "missing_entity.json"));
  REQUIRE(missing.size() == 1);
  CHECK_THAT(missing[0].message, Catch::Contains("'entity'"));
  const auto wrong_type = record.validate(read_json(kCases / "record" / "invalid" / "key_string.json"));
  REQUIRE_FALSE(wrong_type.empty());
  CHECK_THAT(wrong_type[0].message, Catch::Contains("type") && Catch::Contains("\"1\""));
}

TEST_CASE("pointers escape '~' and '/' in keys, and long values are cut", "[schema]") {
  ScratchDir dir("escape");
  const auto validator = SchemaValidator::from_file(
      dir.write("map.schema.json", R"({"type": "object", "additionalProperties": {"type": "integer"}})"));
  const auto errors = validator.validate(json{{"a/b~c", std::string(1000, 'x')}});
  REQUIRE(errors.size() == 1);
  CHECK(errors[0].pointer == "/a~1b~0c");
  CHECK(errors[0].message.size() < 300);
}

TEST_CASE("loading reports the file and the problem", "[schema]") {
  ScratchDir dir("load");
  CHECK_THAT(load_error(dir.write("missing-ref.schema.json", R"({"$ref": "nowhere.schema.json"})")),
             Catch::Contains("nowhere.schema.json"));
  CHECK_THAT(load_error(dir.write("broken.schema.json", R"({"type": )")),
             Catch::Contains("broken.schema.json") && Catch::Contains("not valid JSON"));
  CHECK_THAT(load_error(dir.write("bad-regex.schema.json", R"({"properties": {"a": {"pattern": "(["}}})")),
             Catch::Contains("/properties/a/pattern"));
  CHECK_THAT(load_error(dir.write("bad-type.schema.json", R"({"type": "whole number"})")),
             Catch::Contains("bad-type.schema.json"));
  CHECK_THAT(load_error(fs::path("/nonexistent/dir/page.schema.json")), Catch::Contains("cannot be opened"));
  // std::regex recurses per character: a pattern must come with a bound on its input.
  CHECK_THAT(load_error(dir.write("unbounded.schema.json", R"({"properties": {"a": {"pattern": "^a+$"}}})")),
             Catch::Contains("/properties/a/pattern") && Catch::Contains("maxLength"));
}

TEST_CASE("huge strings are rejected without running the regex on them", "[schema]") {
  // 200,000 characters would overflow an 8 MiB stack inside std::regex; maxLength stops them first.
  const auto record = SchemaValidator::from_file(entimg::common::schema_dir() / "image-record.schema.json");
  json doc = read_json(kCases / "record" / "valid" / "typical.json");
  doc["file"] = "filer_public/3f/a2/3fa2c1d4-5b6e-4f70-8a91-b2c3d4e5f607/" + std::string(200000, 'a');
  doc["image"] = "http://example.org/media/filer_public/3f/a2/3fa2c1d4-5b6e-4f70-8a91-b2c3d4e5f607/" +
                 std::string(200000, 'a');
  doc["description"] = std::string(200000, 'd');  // no pattern here: long text is fine
  CHECK_FALSE(record.is_valid(doc));
  const auto errors = record.validate(doc);
  INFO(describe(errors));
  REQUIRE(errors.size() == 2);
  CHECK(errors[0].pointer == "/file");
  CHECK(errors[1].pointer == "/image");
  CHECK_THAT(errors[0].message, Catch::Contains("200056 characters") && Catch::Contains("maxLength 1024"));
}

TEST_CASE("a $ref resolves to a sibling file whether written relative or as an absolute $id", "[schema]") {
  ScratchDir dir("ref");
  dir.write("leaf.schema.json", R"({"$id": "https://naming.example/x/leaf.schema.json", "type": "integer"})");
  const auto relative = SchemaValidator::from_file(
      dir.write("relative.schema.json", R"({"type": "array", "items": {"$ref": "leaf.schema.json"}})"));
  const auto absolute = SchemaValidator::from_file(
      dir.write("absolute.schema.json",
                R"({"type": "array", "items": {"$ref": "https://naming.example/x/leaf.schema.json"}})"));
  // valijson 1.0 alone would recurse forever on a root that is only a $ref; from_file follows it.
  const auto alias =
      SchemaValidator::from_file(dir.write("alias.schema.json", R"({"$ref": "relative.schema.json"})"));
  for (const auto* v : {&relative, &absolute, &alias}) {
    CHECK(v->is_valid(json::array({1, 2})));
    CHECK_FALSE(v->is_valid(json::array({1, "2"})));
  }
}

TEST_CASE("copies share the schema and can be used from several threads at once", "[schema]") {
  auto original = SchemaValidator::from_file(entimg::common::schema_dir() / "page.schema.json");
  const json good = read_json(kCases / "page" / "valid" / "first_page.json");
  const json bad = read_json(kCases / "page" / "invalid" / "results_item_bad_file.json");
  std::vector<int> wrong(4, 0);
  std::vector<std::thread> threads;
  for (std::size_t t = 0; t < wrong.size(); ++t) {
    threads.emplace_back([copy = original, &good, &bad, &slot = wrong[t]] {
      for (int i = 0; i < 100; ++i) {
        if (!copy.is_valid(good) || copy.is_valid(bad)) ++slot;
        if (copy.validate(bad).empty()) ++slot;
      }
    });
  }
  for (auto& t : threads)
    t.join();
  CHECK(wrong == std::vector<int>(4, 0));
  SchemaValidator moved = std::move(original);
  CHECK(moved.source().filename() == "page.schema.json");
}

// Hidden; run `common_tests "[bench]"` in a Release build for a meaningful figure.
TEST_CASE("is_valid throughput on image records", "[.bench]") {
  const auto record = SchemaValidator::from_file(entimg::common::schema_dir() / "image-record.schema.json");
  const json doc = read_json(kCases / "page" / "valid" / "first_page.json");
  const json& records = doc["results"];
  constexpr int kRounds = 20000;
  std::size_t valid = 0;
  const auto start = std::chrono::steady_clock::now();
  for (int round = 0; round < kRounds; ++round) {
    for (const auto& r : records)
      valid += record.is_valid(r) ? 1U : 0U;
  }
  const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
  const double total = static_cast<double>(kRounds) * static_cast<double>(records.size());
  std::cout << "is_valid: " << static_cast<long long>(total / took.count()) << " records/s (" << total
            << " records in " << took.count() << " s)\n";
  CHECK(valid == static_cast<std::size_t>(total));
}

TEST_CASE("a container where a format-annotated string belongs is invalid, never an exception", "[schema]") {
  using entimg::common::SchemaValidator;
  const auto record = SchemaValidator::from_file(entimg::common::schema_dir() / "image-record.schema.json");
  const auto page = SchemaValidator::from_file(entimg::common::schema_dir() / "page.schema.json");
  nlohmann::json bad_record = nlohmann::json::parse(R"({"id":1,"image":[1],"file":"x"})");
  nlohmann::json bad_page = nlohmann::json::parse(R"({"count":0,"next":{},"previous":null,"results":[]})");
  CHECK_FALSE(record.is_valid(bad_record));
  CHECK_FALSE(page.is_valid(bad_page));
  CHECK_FALSE(simdjson_verdict(record, bad_record.dump()));
  CHECK_FALSE(simdjson_verdict(page, bad_page.dump()));
  CHECK_NOTHROW(record.validate(bad_record));
  CHECK_NOTHROW(page.validate(bad_page));
  CHECK_FALSE(record.validate(bad_record).empty());
  CHECK_FALSE(page.validate(bad_page).empty());
}

// "pattern" runs through PCRE2 with its JavaScript-compatibility options (common/src/ecma_regex.hpp); these
// are answers ECMAScript's RegExp gives, which JSON Schema defers to.
TEST_CASE("patterns answer as ECMAScript regular expressions do", "[schema]") {
  ScratchDir dir("ecma");
  const auto matches = [&dir](const std::string& pattern, const std::string& subject) {
    static int n = 0;
    json schema = {{"type", "string"}, {"maxLength", 100}, {"pattern", pattern}};
    const auto validator =
        SchemaValidator::from_file(dir.write("p" + std::to_string(++n) + ".schema.json", schema.dump()));
    const bool valid = validator.is_valid(json(subject));
    CHECK(validator.validate(json(subject)).empty() == valid);  // both paths agree
    return valid;
  };
  CHECK(matches("^abc$", "abc"));
  CHECK_FALSE(
      matches("^abc$", "abc\n"));  // `$` is the very end (PCRE's default also allows before a final \n)
  CHECK(matches("b", "abc"));      // a search, not a whole-string match
  CHECK(matches("^(a)\\1$", "aa"));
  CHECK_FALSE(matches("^(a)\\1$", "ab"));
  CHECK(matches("^\\u00e9$", "\xc3\xa9"));  // \uhhhh escapes
  CHECK_FALSE(matches("^.$", "\r"));        // `.` is no line terminator (this one stays on std::regex)
  CHECK(matches("^[^/]$", "\xc3\xa9"));     // a class matches one character, not one byte
  CHECK_FALSE(matches("^[]$", ""));         // an empty class matches nothing
  CHECK(matches("^(?:(a)|b)\\1$", "b"));    // a reference to a group that took no part matches empty
}

TEST_CASE("only the pattern keyword is a pattern: a property or a value named so is data", "[schema]") {
  ScratchDir dir("keyword");
  const auto validator = SchemaValidator::from_file(dir.write("k.schema.json", R"({
    "type": "object",
    "properties": {"pattern": {"type": "string", "maxLength": 10, "pattern": "^x"},
                   "kind": {"enum": [{"pattern": "^x"}]}},
    "anyOf": [{"properties": {"a": {"maxLength": 9, "pattern": "^a"}}},
              {"properties": {"a": {"maxLength": 9, "pattern": "^b"}}}]
  })"));
  CHECK(validator.is_valid(json{{"pattern", "xy"}, {"kind", {{"pattern", "^x"}}}, {"a", "a1"}}));
  CHECK(validator.is_valid(json{{"a", "b1"}}));
  CHECK_FALSE(validator.is_valid(json{{"a", "c1"}}));       // neither branch of anyOf
  CHECK_FALSE(validator.is_valid(json{{"pattern", "y"}}));  // the property's own pattern applies
  CHECK_FALSE(validator.is_valid(json{{"pattern", 5}}));
  const auto errors = validator.validate(json{{"pattern", "y"}});
  REQUIRE(errors.size() == 1);
  CHECK(errors[0].pointer == "/pattern");
  CHECK_THAT(errors[0].message, Catch::Contains("pattern \"^x\"") && Catch::Contains("got \"y\""));
}

TEST_CASE("only syntax both dialects read alike goes to PCRE2", "[schema]") {
  using entimg::common::detail::EcmaRegex;
  for (const char* same :
       {"^filer_public/([0-9a-f]{2})/\\1$", "^(?:a|b)+?$", "^\\u00e9\\x41\\cJ\\d\\w\\b$",
        "(?<year>[0-9]{4})\\k<year>", "(?=a)(?!b)(?<=c)(?<!d)", "[.\\]-]", "a{2,3}", "\\.\\/"})
    CHECK(EcmaRegex::same_in_pcre2(same));
  for (const char* differs : {"a.b",         "\\s", "\\S", "\\v",   "\\p{L}", "\\A",     "\\Z",
                              "\\Qa\\E",     "\\h", "\\R", "(?i)a", "(?#c)",  "(*UTF)a", "(?P<n>a)",
                              "[[:alpha:]]", "a*+", "a++", "a{2}+", "\\x4",   "\\u12",   "\\"})
    CHECK_FALSE(EcmaRegex::same_in_pcre2(differs));
}

TEST_CASE("the keyword the PCRE2 route uses internally is refused in a schema", "[schema]") {
  ScratchDir dir("reserved");
  CHECK_THAT(load_error(dir.write("r.schema.json", R"({"properties": {"a": {"$entimg:pattern": "^a"}}})")),
             Catch::Contains("reserved"));
}

TEST_CASE("the project's own patterns all run on PCRE2 (the fast path the bench measures)", "[schema]") {
  using entimg::common::detail::EcmaRegex;
  std::size_t patterns = 0;
  for (const char* file : {"image-record.schema.json", "page.schema.json"}) {
    const json schema = read_json(entimg::common::schema_dir() / file);
    for (const auto& [name, property] : schema.at("properties").items()) {
      if (!property.contains("pattern")) continue;
      ++patterns;
      INFO(file << " " << name);
      CHECK(EcmaRegex::same_in_pcre2(property.at("pattern").get<std::string>()));
      CHECK(EcmaRegex::compile(property.at("pattern").get<std::string>(), nullptr).has_value());
    }
  }
  CHECK(patterns >= 3);
}

// is_uri reads a path 16 bytes at a time where it can (SSE2): every byte value, at every place of such a
// block and past it, gets the answer of the byte-by-byte reading.
TEST_CASE("format uri judges every byte alike in a long path and a short one", "[schema]") {
  using entimg::common::detail::is_uri;
  for (int byte = 0; byte < 256; ++byte) {
    const char c = static_cast<char>(byte);
    // One character of its own after "x": a path character, '?' (a query) or '#' (a fragment) is a URI.
    const bool expected = is_uri(std::string("http://h/x") + c);
    CHECK(expected == (std::isalnum(byte) != 0 ||
                       std::string_view("-._~!$&'()*+,;=:@/?#").find(c) != std::string_view::npos));
    for (std::size_t at = 0; at < 40; ++at) {
      std::string uri = "http://h/" + std::string(40, 'x');  // 'x': not a hex digit after a '%'
      uri[9 + at] = c;
      INFO("byte " << byte << " at " << at);
      REQUIRE(is_uri(uri) == expected);
    }
  }
  // A percent escape inside a block, across the end of one, and at the very end: the scan goes on after it.
  for (std::size_t at = 0; at + 3 <= 40; ++at) {
    std::string uri = "http://h/" + std::string(40, 'x');
    uri.replace(9 + at, 3, "%4A");
    INFO("%4A at " << at);
    REQUIRE(is_uri(uri));
    uri[9 + at + 2] = 'g';  // "%4g": not an escape
    REQUIRE_FALSE(is_uri(uri));
    uri[9 + at + 2] = 'A';
    uri.back() = ' ';  // a space at the end, after the escape
    REQUIRE_FALSE(is_uri(uri));
  }
}

// The answers of ajv-formats' "uri" (ajv 8's reference for draft-07 formats), taken from it once; the
// agreement test (common.schema_agreement) asks ajv itself on random URLs.
TEST_CASE("format uri answers as ajv-formats does", "[schema]") {
  using entimg::common::detail::is_uri;
  for (const char* uri : {"http://example.org/",
                          "http://[::1]/x",
                          "http://[::ffff:1.2.3.4]/",
                          "http://[::ffff:01.2.3.4]/",
                          "http://[1:2:3:4:5:6:7:8]/",
                          "http://[1:2:3:4:5:6:7::]/",
                          "http://[v1.x]/",
                          "http://[V1a.x:y]/",
                          "urn:isbn:0451450523",
                          "http:/[::1]/x",
                          "http://a@b@c/x",
                          "http://a:b:c/",
                          "http://host:80a/",
                          "HTTP://EXAMPLE.ORG/%7e",
                          "http://example.org/?a?b#c?/",
                          "http://[::1]:80/",
                          "http://user:pw@[::1]:8/",
                          "mailto:a@b.c",
                          "http:///x",
                          "http://",
                          "a+b-c.d:x"}) {
    INFO(uri);
    CHECK(is_uri(uri));
  }
  for (const char* not_uri : {"http://[:::]/x",
                              "http://[1::2::3]/",
                              "http://[::ffff:1.2.3.256]/",
                              "http://[1:2:3:4:5:6:7:8:9]/",
                              "http://[1:2:3:4:5:6::1.2.3.4]/",
                              "http://[12345::]/",
                              "x:",
                              "x:?q",
                              "x:#f",
                              "http://ho st/",
                              "http://example.org/%zz",
                              "http://example.org/a#b#c",
                              "1http://x",
                              "http//x",
                              "http://\xc3\xa9.org/",
                              "http://[::1]x/",
                              "http://[::1",
                              "http://]/",
                              "http://x/[",
                              "http:"}) {
    INFO(not_uri);
    CHECK_FALSE(is_uri(not_uri));
  }
  // Both engines run it where a schema says "format": "uri", and only on strings.
  ScratchDir dir("uri");
  const auto link = SchemaValidator::from_file(
      dir.write("u.schema.json", R"({"type": ["string", "integer"], "format": "uri"})"));
  REQUIRE(link.compiled_program() != nullptr);
  check_verdict(link, "\"http://[::1]/x\"", true);
  check_verdict(link, "\"http://[:::]/x\"", false);
  check_verdict(link, "7", true);
  const auto errors = link.validate(json("http://[:::]/x"));
  REQUIRE(errors.size() == 1);
  CHECK_THAT(errors[0].message, Catch::Contains("URI") && Catch::Contains("format \"uri\""));
}

TEST_CASE("a schema compiles unless it uses a keyword only valijson runs", "[schema]") {
  for (const char* file : {"image-record.schema.json", "page.schema.json"}) {
    const auto validator = SchemaValidator::from_file(entimg::common::schema_dir() / file);
    INFO(file << ": " << validator.not_compiled_because());
    CHECK(validator.compiled_program() != nullptr);
    CHECK(SchemaValidator::from_file(entimg::common::schema_dir() / file, SchemaValidator::Engine::valijson)
              .compiled_program() == nullptr);
  }
  ScratchDir dir("compile");
  const auto refused = [&dir](const std::string& schema) {
    static int n = 0;
    const auto v = SchemaValidator::from_file(dir.write("c" + std::to_string(++n) + ".schema.json", schema));
    CHECK(v.compiled_program() == nullptr);
    return v.not_compiled_because();
  };
  CHECK_THAT(refused(R"({"properties": {"a": {"enum": [1, 2]}}})"), Catch::Contains("/properties/a/enum"));
  CHECK_THAT(refused(R"({"anyOf": [{"type": "string"}]})"), Catch::Contains("anyOf"));
  CHECK_THAT(refused(R"({"format": "date"})"), Catch::Contains("format"));
  CHECK_THAT(refused(R"({"type": "string", "maxLength": 9, "pattern": "a.b"})"),
             Catch::Contains("std::regex"));
  CHECK_THAT(refused(R"({"items": [{"type": "string"}]})"), Catch::Contains("items"));
  CHECK_THAT(
      refused(
          R"({"definitions": {"a": {"allOf": [{"$ref": "#/definitions/a"}]}}, "$ref": "#/definitions/a"})"),
      Catch::Contains("allOf"));
}

TEST_CASE("members given by slot get the verdict of the object they come from, on seeded random objects",
          "[schema]") {
  // The suite hands a record's members by slot when the parse found each under a record key; these schemas
  // cover what a root's slots can be: required names with no schema, additional members forbidden, judged by
  // a schema or allowed, member counts, and roots the short way does not take (allOf, false, not an object).
  const std::vector<std::string> schemas = {
      R"({"type": "object", "required": ["a", "b", "z"], "additionalProperties": false,
          "properties": {"a": {"type": "integer", "minimum": 1}, "b": {"type": ["string", "null"]},
                         "c": {"type": "string", "pattern": "^x+$", "maxLength": 9}}})",
      R"({"required": ["a"], "properties": {"b": {"type": "integer"}},
          "additionalProperties": {"type": "string", "maxLength": 2}, "minProperties": 2, "maxProperties": 3})",
      R"({"type": ["object", "array"], "properties": {"a": {"type": "null"}}, "required": ["z"]})",
      R"({"properties": {"a": {"type": "integer"}}, "allOf": [{"required": ["b"]}]})",
      R"(false)",
      R"({"type": "string", "properties": {"a": {"type": "integer"}}})",
      R"({"type": "object"})"};
  const std::vector<std::string_view> names = {"a", "b", "c", "z", "other"};  // "other": no slot anywhere
  const std::vector<std::string> values = {"1",       "0",    "-3",   "1.5", "\"x\"", "\"xx\"",
                                           "\"xyz\"", "null", "true", "[]",  "{}"};
  const std::vector<std::string> likely = {"1", "\"x\"", "\"xx\"", "0", "\"ab\""};  // by name
  ScratchDir dir("by_slot");
  const std::uint64_t seed = GENERATE(as<std::uint64_t>(), 1, 2, 3);
  INFO("seed " << seed << " (entimg_common_tests \"members given by slot*\")");
  entimg::common::Pcg32 rng(seed, 71);
  simdjson::dom::parser parser;
  int by_slot = 0, valid = 0;
  for (std::size_t s = 0; s < schemas.size(); ++s) {
    const auto validator =
        SchemaValidator::from_file(dir.write("s" + std::to_string(s) + ".schema.json", schemas[s]));
    REQUIRE(validator.compiled_program() != nullptr);
    const SchemaValidator::MemberSlots slots = validator.member_slots(names);
    for (int round = 0; round < 400; ++round) {
      // Distinct names in a random order, each with a random value.
      std::vector<std::size_t> order = {0, 1, 2, 3, 4};
      for (std::size_t i = order.size(); i > 1; --i)
        std::swap(order[i - 1], order[rng.below(static_cast<std::uint32_t>(i))]);
      order.resize(rng.below(4) == 0 ? rng.below(6) : 3 + rng.below(3));
      std::string text = "{";
      for (const std::size_t k : order)  // half the time a value the first schemas accept under that name
        text +=
            (text.size() > 1 ? "," : "") + ("\"" + std::string(names[k]) + "\":") +
            (rng.below(2) == 0 ? likely[k] : values[rng.below(static_cast<std::uint32_t>(values.size()))]);
      text += "}";
      simdjson::dom::element object;
      REQUIRE(parser.parse(text).get(object) == simdjson::SUCCESS);
      std::array<simdjson::dom::element, 5> by_key{};
      std::uint32_t present = 0;
      for (const auto field : simdjson::dom::object(object.get_object().value_unsafe())) {
        const auto k =
            static_cast<std::size_t>(std::find(names.begin(), names.end(), field.key) - names.begin());
        by_key[k] = field.value;
        present |= std::uint32_t{1} << k;
      }
      INFO("schema " << schemas[s] << "\nobject " << text);
      const bool whole = validator.is_valid(object);
      REQUIRE(validator.is_valid(object, slots, by_key, present) == whole);
      valid += whole ? 1 : 0;
      by_slot += (present & ~slots.usable) == 0 ? 1 : 0;
    }
  }
  CHECK(valid > 200);    // both verdicts come up
  CHECK(by_slot > 150);  // and many objects have every member in a slot
}
