#pragma once
// Reading a file the user named, bounded: only a regular file (a FIFO would block the reader for ever, a
// device such as /dev/zero would never end) and only up to a size, so a wrong path is refused at once
// instead of eating the machine. The mock's --dataset, --config and --state files and snapshot manifests.
#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>

namespace entimg::common {

/// Why a file was refused: callers branch on the kind (a size limit names its flag), people read the text.
enum class FileProblem { cannot_open, not_regular, too_large, read_error };

/// A file that cannot be read whole; the message is one line naming the file and the problem.
class FileError : public std::runtime_error {
 public:
  FileError(FileProblem kind, const std::string& message) : std::runtime_error(message), kind_(kind) {}
  FileProblem kind() const { return kind_; }

 private:
  FileProblem kind_;
};

/// What a path is, for messages: "a FIFO", "a character device", "a directory", "a regular file", ...
std::string file_kind(const std::filesystem::path& file);

/// The bytes of `file`, once it is a regular file of at most max_bytes (checked on the open file, and again
/// while reading, should it grow). Opening never blocks (O_NONBLOCK). Throws FileError:
/// "/dev/zero: not a regular file (a character device)", "big.jsonl: 2147483648 bytes, over the limit of
/// 1073741824".
std::string read_bounded_file(const std::filesystem::path& file, std::uint64_t max_bytes);

/// Opens `relative` (plain names: no "..", not absolute) beneath the directory `root`, following no symbolic
/// link on the way or at the end: each directory is opened with O_NOFOLLOW | O_DIRECTORY from the one above,
/// the last name with `flags` | O_NOFOLLOW. `root` itself is the user's choice and is followed. A link
/// planted in a directory the program writes (say, `records.jsonl -> /etc/passwd` in a --state directory)
/// cannot send a write or a truncation elsewhere. A descriptor, or -1 with errno (ELOOP: a link, EINVAL: a
/// name that is not plain).
int open_beneath(const std::filesystem::path& root, const std::filesystem::path& relative, int flags,
                 unsigned mode = 0);

/// read_bounded_file of `relative` beneath `root`, opened by open_beneath: a link is refused as cannot_open
/// ("... cannot be opened (a symbolic link, not followed)").
std::string read_bounded_file_beneath(const std::filesystem::path& root,
                                      const std::filesystem::path& relative, std::uint64_t max_bytes);

}  // namespace entimg::common
