#include "entimg/common/bounded_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace entimg::common {
namespace {

std::string kind_of_mode(mode_t mode) {
  if (S_ISREG(mode)) return "a regular file";
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a file";
}

std::string over_limit(const std::filesystem::path& file, std::uint64_t bytes, std::uint64_t max_bytes) {
  return file.string() + ": " + std::to_string(bytes) + " bytes, over the limit of " +
         std::to_string(max_bytes);
}

}  // namespace

std::string file_kind(const std::filesystem::path& file) {
  struct stat info {};
  if (::stat(file.c_str(), &info) != 0) return "missing";
  return kind_of_mode(info.st_mode);
}

std::string read_bounded_file(const std::filesystem::path& file, std::uint64_t max_bytes) {
  // O_NONBLOCK: opening a FIFO with no writer must not block; fstat then refuses anything not regular.
  const int fd = ::open(file.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0)
    throw FileError(FileProblem::cannot_open,
                    file.string() + ": cannot be opened (" + std::strerror(errno) + ")");
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat info {};
  if (::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode))
    throw FileError(FileProblem::not_regular,
                    file.string() + ": not a regular file (" + kind_of_mode(info.st_mode) + ")");
  const auto size = static_cast<std::uint64_t>(info.st_size);
  if (size > max_bytes) throw FileError(FileProblem::too_large, over_limit(file, size, max_bytes));
  std::string text(static_cast<std::size_t>(size), '\0');
  std::size_t have = 0;
  for (;;) {
    if (have == text.size()) text.resize(have + 65536);  // it grew since fstat: read on, to the limit
    const ssize_t got = ::read(fd, text.data() + have, text.size() - have);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0)
      throw FileError(FileProblem::read_error, file.string() + ": read error (" + std::strerror(errno) + ")");
    if (got == 0) break;
    have += static_cast<std::size_t>(got);
    if (have > max_bytes) throw FileError(FileProblem::too_large, over_limit(file, have, max_bytes));
  }
  text.resize(have);
  return text;
}

}  // namespace entimg::common
