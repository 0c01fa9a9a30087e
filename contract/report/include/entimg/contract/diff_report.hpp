#pragma once
// A diff of two sides of a collection (a snapshot against a deployment or a second snapshot), as the
// reports show it: made by `diff` (snapshot.hpp), written by the console, JSON and JUnit reports and by
// each format of report_formats.hpp. docs/snapshots.md.
#include <cstdint>
#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "entimg/contract/runner.hpp"

namespace entimg::contract {

struct DiffOptions {
  std::vector<std::string> ignore;  ///< fields left out of the comparison
  bool strict_host = false;     ///< compare `image` whole; by default its scheme and host are not compared
  std::size_t listed = 1000;    ///< records kept for the report per kind (the counts are exact)
  std::uint64_t limit = 100;    ///< live side: records asked for a page
  std::size_t concurrency = 2;  ///< live side: pages in flight
  std::function<void(const Progress&)> on_progress;
};

struct FieldChange {
  std::string field;
  std::optional<nlohmann::json> before, after;  ///< nullopt: the record has no such field on that side
};

struct RecordChange {
  std::int64_t id = 0;
  std::vector<FieldChange> fields;
};

struct TypeChange {
  std::string field;
  std::string before, after;  ///< JSON kinds seen, e.g. "integer" and "integer|string"
};

struct HeaderChange {
  std::string name;
  std::optional<std::string> before, after;  ///< nullopt: absent on that side
};

struct DiffReport {
  std::string before_source, after_source;  ///< what was compared, for people
  std::uint64_t before_count = 0, after_count = 0;
  std::uint64_t before_records = 0, after_records = 0;
  std::uint64_t added = 0, removed = 0, changed = 0;           ///< exact
  std::vector<nlohmann::json> added_records, removed_records;  ///< the first DiffOptions::listed
  std::vector<RecordChange> changed_records;                   ///< likewise
  std::vector<std::string> fields_added, fields_removed;
  std::vector<TypeChange> types_changed;
  std::vector<HeaderChange> headers;
  std::string error;  ///< the diff could not be made (exit 2)

  bool count_changed() const { return before_count != after_count; }
  bool drift() const { return !fields_added.empty() || !fields_removed.empty() || !types_changed.empty(); }
  bool any_change() const {
    return count_changed() || added || removed || changed || drift() || !headers.empty();
  }
};

/// The diff for people: counts, then the first changes of each kind.
void write_diff_console(std::ostream& out, const DiffReport& report);
/// The diff as one JSON document, for programs.
void write_diff_json(std::ostream& out, const DiffReport& report, const DiffOptions& options);

}  // namespace entimg::contract
