#pragma once
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "entimg/mock/record.hpp"

namespace entimg::mock {

/// The records a list request selects: all of them, or those of one entity (`?entity=`).
struct Selection {
  std::optional<std::int64_t> entity;
  bool matches_nothing = false;  ///< a valid filter value no id can have (e.g. beyond 64 bits)
};

/// Receives the records of a page one at a time (Dataset::each_record).
class RecordSink {
 public:
  virtual ~RecordSink() = default;
  virtual void record(const RecordView& record) = 0;
};

/// A read-only collection in the order the service lists it (by `order`, then ascending id).
class Dataset {
 public:
  virtual ~Dataset() = default;
  /// Number of records the selection holds.
  virtual std::uint64_t count(const Selection& selection) const = 0;
  /// Appends records [offset, offset + limit) of the selection to out (fewer at the end).
  virtual void page(const Selection& selection, std::uint64_t offset, std::uint64_t limit,
                    std::vector<Record>& out) const = 0;
  /// Hands records [offset, offset + limit) of the selection to `each`, at most `batch` at a time, all from
  /// one state of the collection, so a page of the whole collection never holds all its records at once.
  virtual void page_in_batches(const Selection& selection, std::uint64_t offset, std::uint64_t limit,
                               std::uint64_t batch,
                               const std::function<void(std::vector<Record>&)>& each) const;
  /// Hands records [offset, offset + limit) of the selection to `sink`, one at a time and all from one state
  /// of the collection, as page_in_batches does; each view is valid during its call only. Datasets that can
  /// show a record without building a Record (the generated one) do so: this is how pages are written.
  virtual void each_record(const Selection& selection, std::uint64_t offset, std::uint64_t limit,
                           RecordSink& sink) const;
  /// One line a person can read, e.g. "300000 generated records (seed 1)".
  virtual std::string describe() const = 0;
  /// The record whose `file` is exactly this storage path, for serving its picture; nullopt if none.
  virtual std::optional<Record> find_by_file(std::string_view file) const = 0;
  /// The record with this id (the detail route); nullopt if none.
  virtual std::optional<Record> find_by_id(std::int64_t id) const = 0;
  /// The highest id of the collection (0 when empty): new records get ids after it, as a database
  /// sequence gives them. The default walks the collection; datasets that know it say so at once.
  virtual std::int64_t max_id() const;
  /// A collection that changes with time (--churn) starts again from its first state (POST /__mock/reset).
  virtual void restart() const {}

 protected:
  /// Records a page fetches at a time for each_record: a page of the whole collection never holds them all.
  static constexpr std::uint64_t kRecordBatch = 1024;
  /// The batching loop of page_in_batches over any way of fetching a window (LiveDataset's runs under its
  /// read lock); stops early when a fetch comes back empty.
  static void each_batch(std::uint64_t offset, std::uint64_t limit, std::uint64_t batch,
                         const std::function<void(std::uint64_t, std::uint64_t, std::vector<Record>&)>& fetch,
                         const std::function<void(std::vector<Record>&)>& each);
};

/// A collection computed from (seed, position): constant memory for any size, any page in
/// constant time, identical on every machine.
std::unique_ptr<Dataset> make_generated_dataset(std::uint64_t records, std::uint64_t seed);

/// `base` as a live collection (--churn): inserts and deletes a minute, drawn from `seed`, at the moment
/// each request names (X-Mock-Time) or the time since the start. docs/mock.md, "A live collection".
std::shared_ptr<const Dataset> make_churn_dataset(std::shared_ptr<const Dataset> base, std::uint32_t inserts,
                                                  std::uint32_t deletes, std::uint64_t seed);

/// Thrown when a dataset file cannot be used; the message names the file, line and problem.
class DatasetError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The largest file the mock reads by default (--max-file-bytes): a dataset, a snapshot's files, a --state
/// directory's. 1 GiB: ten times the real collection's records.jsonl.
inline constexpr std::uint64_t kMaxFileBytes = std::uint64_t{1} << 30;
/// The bytes of uploads a LiveDataset keeps in memory by default (--upload-bytes): well inside
/// WebAssembly's 2 GiB, where the npm package keeps them.
inline constexpr std::uint64_t kUploadBytes = std::uint64_t{256} << 20;

/// Loads a JSON Lines file (one record per line), a JSON array of records, or a snapshot directory
/// (its records.jsonl, once common::open_snapshot has found the snapshot complete and intact). `image`
/// may be present and is ignored: it is rebuilt for each request's origin. Only regular files of at most
/// max_bytes are read: a FIFO, a device (/dev/zero) or a larger file is refused before any of it is read.
/// Throws DatasetError.
std::unique_ptr<Dataset> load_dataset_file(const std::filesystem::path& path,
                                           std::uint64_t max_bytes = kMaxFileBytes);

/// The records of a JSON Lines text or a JSON array already read; `where` names it in DatasetError's
/// messages ("records.jsonl:3: ..."). What load_dataset_file and the WebAssembly build's `dataset` use.
std::unique_ptr<Dataset> load_dataset_text(const std::string& text, const std::string& where);

}  // namespace entimg::mock
