#pragma once
// The collection the mock serves once it accepts uploads: a read-only dataset plus the records created
// by POST, listed together in the service's order (by `order`, then id). Created records and their files
// live in memory, or with a state directory (--state DIR) on disk, where every record is durable before
// add() returns (the file and the record line written and fsynced) and a half-written entry that a crash
// left behind is dropped when the directory is opened again (docs/mock.md, "Uploads and --state").
#include <atomic>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <shared_mutex>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "entimg/mock/dataset.hpp"

namespace entimg::mock {

/// A --state directory that cannot be used (unreadable, made over another dataset, a write failed).
class StateError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// An upload kept in memory would take the uploads past their byte budget (--upload-bytes): what() says
/// so, naming the flag, for the 507 the upload is answered.
class UploadsFull : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// What one accepted upload adds; the store picks the id and the filer path.
struct NewUpload {
  std::string stored_name;  ///< filer's valid file name ("my_photo_1.jpeg")
  std::string original_filename;
  std::string mime_type;
  std::int64_t order = 0;
  std::optional<std::int64_t> key;
  std::int64_t entity = 0;
  std::string bytes;
};

class LiveDataset final : public Dataset {
 public:
  /// Over `base`; with `state_dir`, records created by earlier runs are loaded from it (created if
  /// missing). Its files are read only when they are regular files of at most max_file_bytes. Without
  /// one, uploads are kept in memory up to upload_bytes (each counted by upload_cost). Throws StateError
  /// saying why a directory cannot be used.
  LiveDataset(std::shared_ptr<const Dataset> base, std::optional<std::filesystem::path> state_dir,
              std::uint64_t max_file_bytes = kMaxFileBytes, std::uint64_t upload_bytes = kUploadBytes);

  /// Stores the upload as a new record (the next id, a fresh uuid4 path) and returns it; with a state
  /// directory the record is on disk first. Thread-safe. Throws StateError if it cannot be stored, and
  /// UploadsFull (in memory) when it would take the uploads past upload_bytes.
  Record add(NewUpload upload);
  /// What an upload counts against upload_bytes: its file, its names, and 1 KiB for its record.
  static std::uint64_t upload_cost(const NewUpload& upload);
  /// The bytes uploaded for a created record's `file`; nullopt for the base dataset's files.
  std::optional<std::string> uploaded_bytes(std::string_view file) const;
  /// Whether some record refers to this entity (the entities the service knows).
  bool has_entity(std::int64_t entity) const;
  /// Number of records created (this run and, with a state directory, earlier ones).
  std::size_t created_count() const;
  /// Removes the records created since the mock started (POST /__mock/reset), and with a state
  /// directory their lines and files; returns how many. Throws StateError if the log cannot be cut.
  std::size_t reset();
  /// Grows with every change of the records (an upload, a reset): equal generations, equal answers.
  std::uint64_t generation() const { return generation_.load(); }
  /// Entries of the state directory dropped when it was opened: a line a crash cut short, or one that is
  /// not a record the mock wrote (edited or damaged), each with its line and reason.
  std::size_t dropped_entries() const { return dropped_.size(); }
  const std::vector<std::string>& dropped_reasons() const { return dropped_; }

  std::uint64_t count(const Selection& selection) const override;
  void page(const Selection& selection, std::uint64_t offset, std::uint64_t limit,
            std::vector<Record>& out) const override;
  /// Under one read lock: an upload waits until the last batch, as a database query sees one snapshot.
  void page_in_batches(const Selection& selection, std::uint64_t offset, std::uint64_t limit,
                       std::uint64_t batch,
                       const std::function<void(std::vector<Record>&)>& each) const override;
  /// Under one read lock; the base's own way when nothing uploaded is in the selection.
  void each_record(const Selection& selection, std::uint64_t offset, std::uint64_t limit,
                   RecordSink& sink) const override;
  std::string describe() const override;
  std::optional<Record> find_by_file(std::string_view file) const override;
  std::optional<Record> find_by_id(std::int64_t id) const override;
  std::int64_t max_id() const override;

 private:
  void load_state();
  std::string state_line_problem(const std::filesystem::path& dir, std::string_view line);
  /// A file of the state directory (`name` below it, read with no link followed).
  std::optional<std::string> read_state_file(const std::filesystem::path& name) const;
  void append_line(const std::string& line);  // under write_mutex_
  void insert_created(Record record);         // under a unique lock
  void page_locked(const Selection& selection, std::uint64_t offset, std::uint64_t limit,
                   std::vector<Record>& out) const;                         // under a shared lock
  std::vector<const Record*> created_in(const Selection& selection) const;  // under a shared lock
  std::uint64_t base_rank(const Selection& selection, std::int64_t order) const;
  std::uint64_t entity_base_rank(const Selection& selection, std::int64_t order) const;

  std::shared_ptr<const Dataset> base_;
  std::optional<std::filesystem::path> state_dir_;
  std::uint64_t max_file_bytes_;
  mutable std::shared_mutex mutex_;  // readers shared; the insert of a new record exclusive
  std::mutex write_mutex_;           // one upload stored at a time
  std::vector<Record> created_;      // sorted by (order, id)
  // base_rank({}, order) of each record of created_ (same index), kept at insert: a page of the whole
  // collection then costs the same however many records were uploaded.
  std::vector<std::uint64_t> created_rank_;
  // base_rank for an entity filter, by (entity, order); the base never changes, so neither do they.
  mutable std::mutex entity_rank_mutex_;
  mutable std::map<std::pair<std::int64_t, std::int64_t>, std::uint64_t> entity_rank_;
  std::unordered_map<std::string, std::string> memory_files_;  // file -> bytes, without a state dir
  std::uint64_t upload_bytes_;      // the budget of the uploads in memory (--upload-bytes)
  std::uint64_t memory_bytes_ = 0;  // their upload_cost, summed; under write_mutex_
  std::int64_t last_id_ = 0;
  std::int64_t start_last_id_ = 0;  // the records up to it were there at start
  std::uint64_t start_log_size_ = 0;
  std::atomic<std::uint64_t> generation_{0};
  std::mt19937_64 uuid_rng_;
  std::vector<std::string> dropped_;
  std::uint64_t log_size_ = 0;  // bytes of records.jsonl that hold whole, good lines
  bool broken_ = false;         // a failed append could not be undone: no more writes
};

}  // namespace entimg::mock
