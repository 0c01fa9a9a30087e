#include "entimg/common/bounded_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

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

std::string cannot_open(const std::filesystem::path& file, int error) {
  return file.string() + ": cannot be opened (" +
         (error == ELOOP ? std::string("a symbolic link, not followed") : std::strerror(error)) + ")";
}

// The bytes of the open file fd (closed here), shown as `file` in messages.
std::string read_bounded_fd(int fd, const std::filesystem::path& file, std::uint64_t max_bytes) {
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

}  // namespace

std::string file_kind(const std::filesystem::path& file) {
  struct stat info {};
  if (::stat(file.c_str(), &info) != 0) return "missing";
  return kind_of_mode(info.st_mode);
}

std::string read_bounded_file(const std::filesystem::path& file, std::uint64_t max_bytes) {
  // O_NONBLOCK: opening a FIFO with no writer must not block; fstat then refuses anything not regular.
  const int fd = ::open(file.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) throw FileError(FileProblem::cannot_open, cannot_open(file, errno));
  return read_bounded_fd(fd, file, max_bytes);
}

int open_beneath(const std::filesystem::path& root, const std::filesystem::path& relative, int flags,
                 unsigned mode) {
  std::vector<std::string> names;
  for (const auto& part : relative) {
    const std::string name = part.string();
    if (name.empty() || name == "." || name == ".." || name.find('/') != std::string::npos) {
      errno = EINVAL;
      return -1;
    }
    names.push_back(name);
  }
  if (names.empty() || relative.is_absolute()) {
    errno = EINVAL;
    return -1;
  }
  // openat(name, O_NOFOLLOW) in dir; a link refused as ELOOP also where O_DIRECTORY makes it ENOTDIR.
  const auto open_in = [](int dir, const std::string& name, int how, mode_t m) {
    const int fd = ::openat(dir, name.c_str(), how | O_NOFOLLOW | O_CLOEXEC, m);
    if (fd < 0 && errno == ENOTDIR) {
      struct stat info {};
      if (::fstatat(dir, name.c_str(), &info, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(info.st_mode))
        errno = ELOOP;
    }
    return fd;
  };
  int dir = ::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  for (std::size_t i = 0; dir >= 0 && i + 1 < names.size(); ++i) {
    const int next = open_in(dir, names[i], O_RDONLY | O_DIRECTORY, 0);
    const int error = errno;
    ::close(dir);
    errno = error;
    dir = next;
  }
  if (dir < 0) return -1;
  const int fd = open_in(dir, names.back(), flags, static_cast<mode_t>(mode));
  const int error = errno;
  ::close(dir);
  errno = error;
  return fd;
}

std::string read_bounded_file_beneath(const std::filesystem::path& root,
                                      const std::filesystem::path& relative, std::uint64_t max_bytes) {
  const int fd = open_beneath(root, relative, O_RDONLY | O_NONBLOCK);
  if (fd < 0) throw FileError(FileProblem::cannot_open, cannot_open(root / relative, errno));
  return read_bounded_fd(fd, root / relative, max_bytes);
}

}  // namespace entimg::common
