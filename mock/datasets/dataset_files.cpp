// --dataset PATH: a JSON Lines or JSON array file, or a snapshot directory, read from the file system (the
// WebAssembly build has none: it is handed the text, load_dataset_text).
#include <fstream>
#include <sstream>

#include "entimg/common/snapshot.hpp"
#include "entimg/mock/dataset.hpp"

namespace entimg::mock {

std::unique_ptr<Dataset> load_dataset_file(const std::filesystem::path& path) {
  if (std::filesystem::is_directory(path)) {
    // A snapshot (common/snapshot.hpp): only a complete one whose files match its manifest.
    std::filesystem::path records;
    try {
      (void)common::open_snapshot(path);
      records = common::snapshot_file(path, "records.jsonl");  // a regular file inside it, resolved once
    } catch (const std::runtime_error& e) {
      throw DatasetError(e.what());
    }
    return load_dataset_file(records);
  }
  const std::string where = path.string();
  std::ifstream in(path, std::ios::binary);
  if (!in) throw DatasetError(where + ": cannot open the dataset file");
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return load_dataset_text(buffer.str(), where);
}

}  // namespace entimg::mock
