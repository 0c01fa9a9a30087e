// entimg-validate-bench: records/s of SchemaValidator::is_valid on one thread, over a JSON array of image
// records, record by record (from nlohmann::json and from simdjson's DOM) and as pages of 1000.
// bench/validate_ajv.js measures ajv the same way on the same file; bench/validate.sh runs both and prints
// the ratio (docs/bench.md).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <iostream>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <simdjson.h>
#include <nlohmann/json.hpp>

#include "entimg/common/schema.hpp"

namespace {

using Clock = std::chrono::steady_clock;
using entimg::common::SchemaValidator;
using nlohmann::json;

constexpr std::size_t kPageSize = 1000;
// Reading the clock costs ~1% of a record's validation; reading it every 64 records makes it noise.
constexpr std::size_t kRecordsPerClockRead = 64;
constexpr std::string_view kCollection = "http://127.0.0.1/edw/api/entities-images/";

struct Args {
  std::string file;
  double seconds = 3.0;
  std::string error;
};

/// One measurement: throughput in records per second and whether every document passed.
struct Measured {
  double records_per_s = 0;
  bool all_valid = true;
};

Args parse_args(std::span<char* const> argv) {
  Args a;
  for (std::size_t i = 0; i < argv.size(); ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--seconds" && i + 1 < argv.size()) {
      char* end = nullptr;
      a.seconds = std::strtod(argv[++i], &end);
      if (*end != '\0' || !(a.seconds > 0 && a.seconds <= 600))
        a.error = "--seconds wants a number in (0, 600], got '" + std::string(argv[i]) + "'";
    } else if (a.file.empty() && !arg.starts_with("-")) {
      a.file = arg;
    } else {
      a.error = "unexpected argument '" + std::string(arg) + "'";
    }
  }
  if (a.error.empty() && a.file.empty()) a.error = "FILE is missing";
  return a;
}

json read_records(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw std::runtime_error(file + ": cannot be opened");
  json doc = json::parse(in);  // throws with line and column on bad JSON
  if (!doc.is_array() || doc.empty())
    throw std::runtime_error(file + ": expected a non-empty JSON array of records");
  return doc;
}

// DRF's LimitOffsetPagination links: the offset parameter is dropped when it would be 0.
json page_link(std::size_t offset) {
  std::string url = std::string(kCollection) + "?limit=" + std::to_string(kPageSize);
  if (offset > 0) url += "&offset=" + std::to_string(offset);
  return url;
}

// The records cut into pages of kPageSize, each with the envelope the endpoint would send, parsed from its
// text as a page is (a copied json lays its members out otherwise in memory, which alone moved this figure
// by a quarter; ajv's pages share the very record objects validated one by one).
std::vector<json> build_pages(const json& records) {
  std::vector<json> pages;
  for (std::size_t offset = 0; offset < records.size(); offset += kPageSize) {
    const std::size_t end = std::min(offset + kPageSize, records.size());
    json results(records.begin() + static_cast<std::ptrdiff_t>(offset),
                 records.begin() + static_cast<std::ptrdiff_t>(end));
    const json page{{"count", records.size()},
                    {"next", end < records.size() ? page_link(end) : json(nullptr)},
                    {"previous", offset > 0 ? page_link(offset - kPageSize) : json(nullptr)},
                    {"results", std::move(results)}};
    pages.push_back(json::parse(page.dump()));
  }
  return pages;
}

// The records as simdjson's DOM, which lives as long as `parser`. Parsed once, as the nlohmann ones are,
// so only is_valid is timed.
std::vector<simdjson::dom::element> read_records(const std::string& file, simdjson::dom::parser& parser) {
  simdjson::dom::array records;
  if (const auto error = parser.load(file).get_array().get(records); error != simdjson::SUCCESS)
    throw std::runtime_error(file +
                             ": simdjson cannot read it as an array: " + simdjson::error_message(error));
  std::vector<simdjson::dom::element> out;
  out.reserve(records.size());
  for (const simdjson::dom::element record : records)
    out.push_back(record);
  return out;
}

// Validates docs round robin for about `seconds`, after one untimed pass that warms caches and gives
// the verdict; records_in[i] is how many records docs[i] holds.
template <typename Document>
Measured measure(const SchemaValidator& validator, std::span<const Document> docs,
                 std::span<const std::size_t> records_in, double seconds) {
  Measured m;
  for (const Document& doc : docs)
    m.all_valid = validator.is_valid(doc) && m.all_valid;

  const auto budget = std::chrono::duration<double>(seconds);
  const Clock::time_point start = Clock::now();
  Clock::time_point now = start;
  std::size_t records = 0, since_clock = 0, i = 0;
  bool all_valid = true;  // kept so the work cannot be optimised away; the verdict is the warm-up's
  do {
    all_valid = validator.is_valid(docs[i]) && all_valid;
    records += records_in[i];
    since_clock += records_in[i];
    i = i + 1 == docs.size() ? 0 : i + 1;
    if (since_clock >= kRecordsPerClockRead) {
      since_clock = 0;
      now = Clock::now();
    }
  } while (now - start < budget);
  m.records_per_s = static_cast<double>(records) / std::chrono::duration<double>(now - start).count();
  m.all_valid = m.all_valid && all_valid;
  return m;
}

const char* yes_no(bool b) {
  return b ? "yes" : "no";
}

}  // namespace

int main(int argc, char** argv) {
  const Args args = parse_args(std::span<char* const>(argv + 1, static_cast<std::size_t>(argc - 1)));
  if (!args.error.empty()) {
    std::cerr << "entimg-validate-bench: " << args.error << "\n"
              << "usage: entimg-validate-bench FILE [--seconds S]   (FILE: a JSON array of image records)\n";
    return 2;
  }
  try {
    const auto dir = entimg::common::schema_dir();
    const auto record_schema = SchemaValidator::from_file(dir / "image-record.schema.json");
    const auto page_schema = SchemaValidator::from_file(dir / "page.schema.json");
    const json records = read_records(args.file);
    const std::vector<json> pages = build_pages(records);

    const std::vector<json>& record_list = records.get_ref<const json::array_t&>();
    const std::vector<std::size_t> ones(record_list.size(), 1);
    const Measured per_record = measure<json>(record_schema, record_list, ones, args.seconds);
    std::cout << "ours: " << std::llround(per_record.records_per_s) << " records/s (" << records.size()
              << " records, all valid: " << yes_no(per_record.all_valid) << ")" << std::endl;

    std::vector<std::size_t> page_sizes;
    for (const json& page : pages)
      page_sizes.push_back(page["results"].size());
    const Measured per_page = measure<json>(page_schema, pages, page_sizes, args.seconds);
    std::cout << "ours via pages: " << std::llround(per_page.records_per_s) << " records/s (" << pages.size()
              << " pages of up to " << kPageSize << " records, all valid: " << yes_no(per_page.all_valid)
              << ")" << std::endl;

    simdjson::dom::parser parser;
    const std::vector<simdjson::dom::element> elements = read_records(args.file, parser);
    if (elements.size() != ones.size())
      throw std::runtime_error(args.file + ": simdjson and nlohmann read different numbers of records");
    const Measured per_element = measure<simdjson::dom::element>(record_schema, elements, ones, args.seconds);
    std::cout << "ours via simdjson: " << std::llround(per_element.records_per_s) << " records/s ("
              << elements.size()
              << " records as simdjson DOM elements, all valid: " << yes_no(per_element.all_valid) << ")"
              << std::endl;
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "entimg-validate-bench: error: " << e.what() << "\n";
    return 2;
  }
}
