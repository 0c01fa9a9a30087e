// --dataset PATH: a JSON Lines or JSON array file, or a snapshot directory, read from the file system (the
// WebAssembly build has none: it is handed the text, load_dataset_text).
#include "entimg/common/bounded_file.hpp"
#include "entimg/common/snapshot.hpp"
#include "entimg/mock/dataset.hpp"

namespace entimg::mock {
namespace {

// The message of a file refused, naming the flag that raises the limit when that is the problem.
DatasetError refused(const std::runtime_error& e) {
  const auto* file = dynamic_cast<const common::FileError*>(&e);
  const bool too_large = file != nullptr && file->kind() == common::FileProblem::too_large;
  return DatasetError(std::string(e.what()) + (too_large ? " (--max-file-bytes)" : ""));
}

}  // namespace

std::unique_ptr<Dataset> load_dataset_file(const std::filesystem::path& path, std::uint64_t max_bytes) {
  if (std::filesystem::is_directory(path)) {
    // A snapshot (common/snapshot.hpp): only a complete one whose files match its manifest.
    std::filesystem::path records;
    try {
      (void)common::open_snapshot(path, max_bytes);
      records = common::snapshot_file(path, "records.jsonl");  // a regular file inside it, resolved once
    } catch (const std::runtime_error& e) {
      throw refused(e);
    }
    return load_dataset_file(records, max_bytes);
  }
  std::string text;
  try {
    text = common::read_bounded_file(path, max_bytes);
  } catch (const common::FileError& e) {
    throw refused(e);
  }
  return load_dataset_text(text, path.string());
}

}  // namespace entimg::mock
