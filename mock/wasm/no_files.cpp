// The WebAssembly build has no file system, so no --state directory: LiveDataset is always made without
// one there (binding.cpp), and the file functions it would call for a state directory say so.
#include <stdexcept>

#include "entimg/common/bounded_file.hpp"
#include "entimg/common/snapshot.hpp"

namespace entimg::common {

std::string sha256_file(const std::filesystem::path& file, std::uint64_t*) {
  throw std::runtime_error(file.string() + ": the WebAssembly build has no file system (no --state)");
}

std::string read_bounded_file(const std::filesystem::path& file, std::uint64_t) {
  throw FileError(FileProblem::cannot_open,
                  file.string() + ": the WebAssembly build has no file system (no --state)");
}

std::string read_bounded_file_beneath(const std::filesystem::path& root,
                                      const std::filesystem::path& relative, std::uint64_t) {
  throw FileError(FileProblem::cannot_open,
                  (root / relative).string() + ": the WebAssembly build has no file system (no --state)");
}

int open_beneath(const std::filesystem::path&, const std::filesystem::path&, int, unsigned) {
  return -1;
}

}  // namespace entimg::common
