#include <catch2/catch.hpp>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>

#include "entimg/mock/dataset.hpp"
#include "filer_names.hpp"
#include "json_writer.hpp"
#include "record_json.hpp"

using namespace entimg::mock;

namespace {
std::vector<Record> page(const Dataset& d, std::uint64_t offset, std::uint64_t limit, Selection s = {}) {
  std::vector<Record> out;
  d.page(s, offset, limit, out);
  return out;
}

std::string json_of(const Record& r) {
  return entimg::mock::detail::record_to_json(r).dump();
}

std::filesystem::path write_temp(const std::string& name, const std::string& text) {
  const auto path = std::filesystem::temp_directory_path() / ("entimg-" + name);
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

const std::string kGoodRecord =
    R"({"id":7,"image":"http://x/media/ignored","file":"filer_public/ab/cd/abcd1234-1111-4111-8111-111111111111/a.png",)"
    R"("original_filename":null,"file_size":10,"author":"","name":"","default_caption":"","alt":"","description":"",)"
    R"("subject_location":"","mime_type":"image/png","order":0,"key":null,"entity":5})";
}  // namespace

TEST_CASE("the generated collection is the same for the same seed and differs for another", "[dataset]") {
  const auto a = make_generated_dataset(1000, 7), b = make_generated_dataset(1000, 7),
             c = make_generated_dataset(1000, 8);
  const auto pa = page(*a, 500, 20), pb = page(*b, 500, 20), pc = page(*c, 500, 20);
  REQUIRE(pa.size() == 20);
  bool differs = false;
  for (std::size_t i = 0; i < pa.size(); ++i) {
    CHECK(pa[i].file == pb[i].file);
    CHECK(pa[i].id == pb[i].id);
    differs = differs || pa[i].file != pc[i].file;
  }
  CHECK(differs);
  CHECK(a->describe() == "1000 generated records (seed 7)");
}

TEST_CASE("generated records look like the real data", "[dataset]") {
  const auto d = make_generated_dataset(300000, 1);
  CHECK(d->count({}) == 300000);
  const auto records = page(*d, 0, 3000);
  const std::regex file_layout(
      "^filer_public/([0-9a-f]{2})/([0-9a-f]{2})/"
      "([0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12})/"
      "[a-z0-9_.-]+$");
  int gaps = 0, cyrillic = 0, path_like = 0, nulls = 0, png = 0, jpeg = 0;
  std::map<std::int64_t, int> per_entity;
  bool entity_unsorted = false;
  for (std::size_t i = 0; i < records.size(); ++i) {
    const Record& r = records[i];
    std::smatch m;
    REQUIRE(std::regex_match(r.file, m, file_layout));
    CHECK(m[1].str() + m[2].str() == m[3].str().substr(0, 4));
    const bool is_png = r.file.ends_with(".png"),
               is_jpeg = r.file.ends_with(".jpg") || r.file.ends_with(".jpeg");
    REQUIRE((is_png || is_jpeg));
    CHECK(r.mime_type == (is_png ? "image/png" : "image/jpeg"));
    CHECK(r.mime_type == detail::guess_mime_type(r.file));
    png += is_png;
    jpeg += is_jpeg;
    CHECK(r.order == 0);
    CHECK_FALSE(r.key.has_value());
    CHECK(r.file_size > 0);
    if (i > 0) {
      REQUIRE(r.id > records[i - 1].id);
      gaps += r.id > records[i - 1].id + 1;
      entity_unsorted = entity_unsorted || r.entity < records[i - 1].entity;
    }
    if (!r.original_filename)
      ++nulls;
    else if (r.original_filename->find('/') != std::string::npos)
      ++path_like;
    else if (static_cast<unsigned char>((*r.original_filename)[0]) >= 0x80)
      ++cyrillic;
    ++per_entity[r.entity];
  }
  CHECK(gaps > 100);
  CHECK(cyrillic > 100);
  CHECK(path_like > 100);
  CHECK(nulls > 0);
  CHECK(png > 100);
  CHECK(jpeg > 100);
  CHECK(entity_unsorted);
  // About four images per entity over the whole collection.
  const auto some_entity = records[10].entity;
  CHECK(d->count({some_entity}) >= 3);
  CHECK(d->count({some_entity}) <= 5);
}

TEST_CASE("generated stored names are what django-filer makes of the original names", "[dataset]") {
  const auto d = make_generated_dataset(100000, 5);
  std::size_t compared = 0;
  for (std::uint64_t offset = 0; offset < 100000; offset += 5000) {
    for (const Record& r : page(*d, offset, 500)) {
      if (!r.original_filename) continue;
      const std::string& original = *r.original_filename;
      const std::string base =
          original.substr(original.rfind('/') == std::string::npos ? 0 : original.rfind('/') + 1);
      REQUIRE(r.file.substr(r.file.rfind('/') + 1) == entimg::mock::detail::filer_stored_name(base));
      ++compared;
    }
  }
  CHECK(compared > 9000);
}

TEST_CASE("a generated entity filter selects exactly the records of that entity, in order", "[dataset]") {
  const auto d = make_generated_dataset(997, 3);
  const auto all = page(*d, 0, 997);
  std::map<std::int64_t, std::vector<std::int64_t>> expected;
  for (const auto& r : all)
    expected[r.entity].push_back(r.id);
  std::uint64_t total = 0;
  for (const auto& [entity, ids] : expected) {
    REQUIRE(d->count({entity}) == ids.size());
    const auto got = page(*d, 0, 100, {entity});
    REQUIRE(got.size() == ids.size());
    for (std::size_t i = 0; i < ids.size(); ++i)
      CHECK(got[i].id == ids[i]);
    total += ids.size();
  }
  CHECK(total == 997);
  CHECK(d->count({-1}) == 0);
  CHECK(d->count({1}) == 0);
  CHECK(d->count({std::nullopt, true}) == 0);
}

TEST_CASE("deep pages of a huge generated collection are served without materialising it", "[dataset]") {
  const auto d = make_generated_dataset(10'000'000, 1);
  const auto last = page(*d, 9'999'995, 12);
  REQUIRE(last.size() == 5);
  CHECK(last.back().id >= 3 * 9'999'999 + 1);
  CHECK(page(*d, 10'000'000, 12).empty());
}

TEST_CASE("the generated views that promise plain text keep it: nothing to escape, a file kept whole",
          "[dataset]") {
  // The serializer copies a plain view's text as it is (RecordView::plain); what it would have written
  // otherwise must be the same bytes, and the views of a page the same records as page() gives.
  struct Check final : RecordSink {
    void record(const RecordView& r) override {
      ++seen;
      plain += r.plain;
      if (r.plain) {
        for (const std::string_view text :
             {r.file, r.original_filename.value_or(""), r.author, r.name, r.default_caption, r.alt,
              r.description, r.subject_location, r.mime_type}) {
          std::string json;
          detail::append_json_string(json, text);
          CHECK(json == "\"" + std::string(text) + "\"");
        }
        std::string uri;
        detail::append_filepath_uri(uri, r.file);
        CHECK(uri == r.file);
      }
      views.push_back(record_of(r));
    }
    int seen = 0, plain = 0;
    std::vector<Record> views;
  };
  for (const std::uint64_t seed : {std::uint64_t{1}, std::uint64_t{7}}) {
    const auto d = make_generated_dataset(300000, seed);
    Check check;
    d->each_record({}, 123456, 20000, check);
    CHECK(check.seen == 20000);
    CHECK(check.plain > 19000);  // all but the ~1% whose description quotes
    CHECK(check.plain < 20000);
    const auto records = page(*d, 123456, 20000);
    REQUIRE(records.size() == check.views.size());
    for (std::size_t i = 0; i < records.size(); i += 97)
      CHECK(json_of(records[i]) == json_of(check.views[i]));
  }
}

TEST_CASE("an empty generated collection has no records", "[dataset]") {
  const auto d = make_generated_dataset(0, 1);
  CHECK(d->count({}) == 0);
  CHECK(page(*d, 0, 12).empty());
}

TEST_CASE("a dataset file loads as JSON Lines or as a JSON array", "[dataset]") {
  const auto lines =
      write_temp("ok.jsonl", kGoodRecord + "\n\n" + std::string(kGoodRecord).replace(6, 1, "3") + "\n");
  const auto d = load_dataset_file(lines);
  REQUIRE(d->count({}) == 2);
  const auto records = page(*d, 0, 12);
  CHECK(records[0].id == 3);  // listed in id order
  CHECK(records[1].id == 7);
  CHECK_FALSE(records[0].original_filename.has_value());
  CHECK(d->count({5}) == 2);
  CHECK(d->count({6}) == 0);

  const auto array = write_temp("ok.json", "[" + kGoodRecord + "]");
  CHECK(load_dataset_file(array)->count({}) == 1);
}

TEST_CASE("a bad dataset file is refused with the line and the problem", "[dataset]") {
  const auto expect_error = [](const std::string& name, const std::string& text, const std::string& message) {
    const auto path = write_temp(name, text);
    try {
      load_dataset_file(path);
      FAIL("no error for " << name);
    } catch (const DatasetError& e) {
      CHECK_THAT(e.what(), Catch::Contains(message));
    }
  };
  expect_error("syntax.jsonl", kGoodRecord + "\n{\"id\":", "syntax.jsonl:2: invalid JSON");
  expect_error("missing.jsonl", R"({"id":1})", "missing.jsonl:1: missing field \"file\"");
  expect_error("unknown.jsonl", std::string(kGoodRecord).insert(1, R"("extra":1,)"),
               "unknown field \"extra\"");
  expect_error("type.jsonl", std::string(kGoodRecord).replace(6, 1, "\"7\""),
               "field \"id\" must be an integer");
  expect_error("dup.jsonl", kGoodRecord + "\n" + kGoodRecord, "dup.jsonl:2: duplicate id 7");
  expect_error("scalar.jsonl", "42", "expected a JSON object");
  expect_error("array.json", "[" + kGoodRecord + ",", "array.json:1: invalid JSON");
  CHECK_THROWS_AS(load_dataset_file("/nonexistent/entimg.jsonl"), DatasetError);
  CHECK(load_dataset_file(write_temp("empty.jsonl", ""))->count({}) == 0);
}

// Before: a field nested 100,000 deep crashed the load (SIGSEGV, no message), and a message quoted a bad
// value whole (5 MB for a 5M-digit number; here 1M digits).
TEST_CASE("a dataset nested too deep or with a huge bad value gets a short message, not a crash",
          "[dataset]") {
  const auto message_of = [](const std::string& name, const std::string& text) {
    try {
      load_dataset_file(write_temp(name, text));
    } catch (const DatasetError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  for (const std::string& text : {std::string(kGoodRecord).replace(6, 1, deep), "[" + deep + "]", deep}) {
    const std::string m = message_of("deep.jsonl", text);
    CHECK_THAT(m, Catch::Contains("deep.jsonl") && Catch::Contains("nests arrays/objects deeper than 64"));
  }
  const std::string huge = message_of(
      "huge.jsonl", std::string(kGoodRecord).replace(6, 1, "\"" + std::string(1'000'000, '9') + "\""));
  REQUIRE(huge.size() < 400);  // before anything quotes it in a failure
  CHECK_THAT(huge, Catch::Contains("huge.jsonl:1: field \"id\" must be an integer, got \"999"));
  CHECK_THAT(huge, Catch::Contains("(1000002 bytes)"));
  for (const std::string& number : {std::string(1'000'000, '9') + "x", std::string(1'000'000, '9')}) {
    const std::string bad = message_of("bad.jsonl", "{\"id\": 1" + number + "}");
    REQUIRE(bad.size() < 400);
    CHECK_THAT(bad, Catch::Contains("bad.jsonl:1: invalid JSON"));
  }
}

// Issue 43: a JSON array of records loaded superlinearly (100,000 records: 264 s in the dev build, their JSON
// Lines 12 s): nlohmann's parser with a callback walks the enclosing array at the end of every object. Held
// against the same records as JSON Lines, parsed in the same run on the same thread (CPU time), so the
// machine's speed and load cancel out: the array may cost a few times the lines, not the records' count.
TEST_CASE("a JSON array of records loads in time linear in its records, as JSON Lines do", "[dataset]") {
  const auto generated = make_generated_dataset(20000, 1);
  std::vector<Record> records;
  generated->page({}, 0, 20000, records);
  std::string lines, array = "[";
  for (const Record& r : records) {
    const std::string json = detail::record_to_json(r).dump();
    lines += json + "\n";
    array += (array.size() > 1 ? "," : "") + json;
  }
  array += "]";
  const auto cpu_seconds = [](auto&& load) {
    timespec start{}, end{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &start);
    CHECK(load()->count({}) == 20000);
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &end);
    return static_cast<double>(end.tv_sec - start.tv_sec) +
           static_cast<double>(end.tv_nsec - start.tv_nsec) / 1e9;
  };
  const double as_lines = cpu_seconds([&] { return load_dataset_text(lines, "records.jsonl"); });
  const double as_array = cpu_seconds([&] { return load_dataset_text(array, "records.json"); });
  INFO("20,000 records: JSON Lines " << as_lines << " s, a JSON array " << as_array << " s of CPU");
  CHECK(as_array < 2.5 * as_lines);  // before: 6.4 times
}
