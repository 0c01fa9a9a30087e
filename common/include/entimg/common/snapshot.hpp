#pragma once
// A snapshot: what `entities-images-contract record` wrote of a deployment, read back by `diff` and
// served by `entities-images-mock --dataset DIR`. The layout (docs/snapshots.md):
//   DIR/manifest.json   what, when, from where, and the size and sha256 of every other file
//   DIR/records.jsonl   the records as served, in order, one compact JSON object a line
//   DIR/pages/page-N.json, page-N.head.json   the first pages' bodies as served, and their status and headers
// A recording in progress lives in DIR.partial with "complete": false and is never read as a snapshot.
#include <cstdint>
#include <filesystem>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace entimg::common {

inline constexpr const char* kSnapshotFormat = "entities-images-snapshot";
inline constexpr int kSnapshotVersion = 1;

struct SnapshotFile {
  std::string name;  ///< relative to the snapshot directory, '/'-separated
  std::uint64_t bytes = 0;
  std::string sha256;  ///< lower-case hex
};

struct SnapshotManifest {
  std::string base_url;         ///< the deployment recorded
  std::string collection_path;  ///< e.g. "/edw/api/entities-images/"
  std::string recorded_at;      ///< UTC, ISO 8601, when the recording finished
  std::string tool;             ///< "entities-images-contract 0.3.0"
  std::uint64_t count = 0;      ///< the deployment's `count` on the last page read
  std::uint64_t records = 0;    ///< lines in records.jsonl
  std::uint64_t limit = 0;      ///< the limit the walk asked for
  bool complete = false;
  std::vector<SnapshotFile> files;

  nlohmann::json to_json() const;
  /// Throws std::runtime_error saying which member is missing or of the wrong kind.
  static SnapshotManifest from_json(const nlohmann::json& doc);
};

/// DIR/name resolved, once it is a regular file whose real path lies inside DIR: a FIFO (which would block
/// the reader), a device such as /dev/zero (which never ends) or a symlink out of DIR throws
/// std::runtime_error naming the file. Open snapshot files through it.
std::filesystem::path snapshot_file(const std::filesystem::path& dir, const std::string& name);

/// SHA-256 of a regular file's bytes as lower-case hex; *bytes gets its size. Throws std::runtime_error,
/// also for anything not a regular file.
std::string sha256_file(const std::filesystem::path& file, std::uint64_t* bytes = nullptr);

/// SHA-256 of bytes in memory as lower-case hex (the journal's record of a body it keeps only the start of).
std::string sha256_hex(std::string_view bytes);

/// Reads DIR/manifest.json and checks that it describes a complete snapshot of this format whose files
/// are all there with their recorded sizes and hashes. Throws std::runtime_error naming the problem
/// (a partial recording, a missing or altered file, a foreign directory), and FileError (bounded_file.hpp)
/// for a file over max_file_bytes, found before it is read.
SnapshotManifest open_snapshot(const std::filesystem::path& dir,
                               std::uint64_t max_file_bytes = std::numeric_limits<std::uint64_t>::max());

}  // namespace entimg::common
