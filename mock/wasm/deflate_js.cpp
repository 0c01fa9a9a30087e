// deflate.hpp and gzip_compress in the WebAssembly build, which has no zlib: pako (zlib 1.2.x's deflate
// ported to JavaScript, the same bytes as zlib's at every level) gzips, handed in by the package's loader
// as Module.gzip (mock/npm/core.js). CRC-32 is computed here.
#include <array>
#include <cstdlib>
#include <stdexcept>

#include <emscripten/emscripten.h>

#include "deflate.hpp"

namespace entimg::mock {
namespace {

// Gzips [data, data + size) with pako (a gzip member at level 6); the bytes go to a malloc'ed buffer whose
// address is returned and whose size is put in *out_size.
EM_JS(char*, js_gzip, (const char* data, std::size_t size, std::size_t* out_size), {
  const input = HEAPU8.subarray(data, data + size);
  const packed = Module.gzip(input);
  const out = _malloc(packed.length || 1);
  HEAPU8.set(packed, out);
  HEAPU32[out_size >> 2] = packed.length;
  return out;
});

}  // namespace

namespace detail {

std::uint32_t crc32_of(std::string_view data) {
  static const std::array<std::uint32_t, 256> table = [] {
    std::array<std::uint32_t, 256> t{};
    for (std::uint32_t n = 0; n < 256; ++n) {
      std::uint32_t c = n;
      for (int k = 0; k < 8; ++k)
        c = (c & 1) ? 0xEDB88320U ^ (c >> 1) : c >> 1;
      t[n] = c;
    }
    return t;
  }();
  std::uint32_t crc = 0xFFFFFFFFU;
  for (const char ch : data)
    crc = table[(crc ^ static_cast<std::uint8_t>(ch)) & 0xFFU] ^ (crc >> 8);
  return crc ^ 0xFFFFFFFFU;
}

}  // namespace detail

std::string gzip_compress(std::string_view data) {
  std::size_t size = 0;
  char* packed = js_gzip(data.data(), data.size(), &size);
  if (packed == nullptr) throw std::runtime_error("pako: gzip failed");
  std::string out(packed, size);
  std::free(packed);
  return out;
}

}  // namespace entimg::mock
