// deflate.hpp and gzip_compress with zlib: the native build.
#include <stdexcept>

#include <zlib.h>

#include "deflate.hpp"

namespace entimg::mock {

namespace detail {

std::uint32_t crc32_of(std::string_view data) {
  return static_cast<std::uint32_t>(
      crc32(0, reinterpret_cast<const Bytef*>(data.data()), static_cast<uInt>(data.size())));
}

}  // namespace detail

std::string gzip_compress(std::string_view data) {
  // zlib's own gzip wrapper (window bits 15 + 16) writes what Python 3.11 does for mtime 0: mtime 0,
  // xfl 0 at level 6, OS 3, then raw deflate at level 6 and memory level 8, CRC-32 and size.
  z_stream z{};
  if (deflateInit2(&z, 6, Z_DEFLATED, MAX_WBITS + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    throw std::runtime_error("zlib: deflateInit2 failed");
  std::string out(deflateBound(&z, static_cast<uLong>(data.size())) + 18, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  z.avail_in = static_cast<uInt>(data.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  const int done = deflate(&z, Z_FINISH);
  deflateEnd(&z);
  if (done != Z_STREAM_END) throw std::runtime_error("zlib: deflate did not finish");
  out.resize(z.total_out);
  return out;
}

}  // namespace entimg::mock
