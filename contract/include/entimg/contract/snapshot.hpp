#pragma once
// Regression: record a deployment into a snapshot (common/snapshot.hpp has the layout), and diff a
// deployment or a second snapshot against one. docs/snapshots.md.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "entimg/contract/http.hpp"
#include "entimg/contract/runner.hpp"

namespace entimg::contract {

struct RecordOptions {
  std::filesystem::path out;    ///< the snapshot directory; the recording goes to OUT.partial until done
  std::uint64_t limit = 100;    ///< records asked for a page
  std::size_t concurrency = 2;  ///< pages in flight
  bool force = false;           ///< replace a complete snapshot at OUT, or a partial one of another recording
  std::function<void(const Progress&)> on_progress;
};

struct RecordResult {
  std::string error;     ///< set when the recording stopped; OUT.partial is kept, and a run resumes it
  bool resumed = false;  ///< a partial recording was continued
  std::uint64_t resumed_records = 0;  ///< records it already held
  std::uint64_t records = 0;
  std::uint64_t count = 0;
  std::vector<std::string> warnings;  ///< e.g. fewer records than `count` said
};

/// Walks client's deployment and writes the snapshot. Never throws for what the server does.
RecordResult record_snapshot(Client& client, const RecordOptions& options);

/// Headers left out of a snapshot and of header comparisons: they differ on every answer.
bool volatile_header(std::string_view name);

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

/// The snapshot at `before` against client's live deployment (after == nullopt) or against the snapshot
/// at *after. Never throws for what a server or a file holds: DiffReport::error says what went wrong.
DiffReport diff_snapshot(const std::filesystem::path& before,
                         const std::optional<std::filesystem::path>& after, Client* client,
                         const DiffOptions& options);

void write_diff_console(std::ostream& out, const DiffReport& report);
void write_diff_json(std::ostream& out, const DiffReport& report, const DiffOptions& options);

}  // namespace entimg::contract
