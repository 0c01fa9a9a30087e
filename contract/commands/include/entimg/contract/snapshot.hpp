#pragma once
// Regression: record a deployment into a snapshot (common/snapshot.hpp has the layout), and diff a
// deployment or a second snapshot against one. docs/snapshots.md.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "entimg/contract/diff_report.hpp"
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

/// The snapshot at `before` against client's live deployment (after == nullopt) or against the snapshot
/// at *after. Never throws for what a server or a file holds: DiffReport::error says what went wrong.
DiffReport diff_snapshot(const std::filesystem::path& before,
                         const std::optional<std::filesystem::path>& after, Client* client,
                         const DiffOptions& options);

}  // namespace entimg::contract
