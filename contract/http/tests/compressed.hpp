#pragma once
// Bodies compressed as a server would send them (zlib, Brotli's encoder), for the tests of decoding and of
// the compression rules.
#include <zlib.h>

#include <brotli/encode.h>

#include <cstdint>
#include <string>

namespace entimg::contract::test {

/// text deflated with zlib's window_bits: 15 a zlib stream, -15 raw deflate, 15 + 16 gzip.
inline std::string deflated(const std::string& text, int window_bits) {
  z_stream zs{};
  deflateInit2(&zs, Z_BEST_COMPRESSION, Z_DEFLATED, window_bits, 8, Z_DEFAULT_STRATEGY);
  std::string out(deflateBound(&zs, text.size()) + 32, '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  zs.avail_in = static_cast<uInt>(text.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  deflate(&zs, Z_FINISH);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return out;
}

inline std::string gzip_compressed(const std::string& text) {
  return deflated(text, 15 + 16);
}

inline std::string brotli(const std::string& text) {
  std::size_t size = BrotliEncoderMaxCompressedSize(text.size());
  std::string out(size, '\0');
  BrotliEncoderCompress(BROTLI_DEFAULT_QUALITY, BROTLI_DEFAULT_WINDOW, BROTLI_MODE_TEXT, text.size(),
                        reinterpret_cast<const std::uint8_t*>(text.data()), &size,
                        reinterpret_cast<std::uint8_t*>(out.data()));
  out.resize(size);
  return out;
}

}  // namespace entimg::contract::test
