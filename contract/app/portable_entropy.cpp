// The portable tarball's programs ask glibc for nothing past GLIBC_2.34 (docs/gate.md, ci/portable_check.sh).
// Expat, linked from Debian 12's archive for the SVG check, salts its hash tables with arc4random_buf, which
// glibc has only since 2.36. The portable build alone defines it here from getrandom (glibc 2.25): the linker
// takes a definition in the program before libc's, so the tool runs on glibc 2.34 and 2.35 (Ubuntu 22.04).
#include <sys/random.h>

#include <cerrno>
#include <cstddef>
#include <cstdlib>

extern "C" void arc4random_buf(void* buffer, std::size_t size) noexcept {
  auto* out = static_cast<unsigned char*>(buffer);
  while (size > 0) {
    const ssize_t got = getrandom(out, size, 0);
    if (got < 0) {
      if (errno == EINTR) continue;
      std::abort();  // as glibc's own: a salt without entropy is no salt
    }
    out += got;
    size -= static_cast<std::size_t>(got);
  }
}
