#pragma once
// zlib's roles in the mock's answers: the CRC-32 of the placeholder PNG's chunks, and --gzip's gzip member
// (gzip_compress, which gzip.hpp's middleware calls). Natively zlib does them (deflate_zlib.cpp); the
// WebAssembly build, which has no zlib, computes the CRC itself and hands gzip to pako, zlib's JavaScript
// port, whose bytes are zlib's (mock/wasm/deflate_js.cpp; the differential test holds them equal:
// docs/npm.md). The PNG's zlib stream is the mock's own (placeholder_png.cpp).
#include <cstdint>
#include <string>
#include <string_view>

namespace entimg::mock::detail {

/// CRC-32 (ISO-HDLC, as PNG chunks and gzip carry it).
std::uint32_t crc32_of(std::string_view data);

}  // namespace entimg::mock::detail

namespace entimg::mock {

/// Python's gzip.compress(data, compresslevel=6, mtime=0), as Django's compress_string calls it, byte for
/// byte (Python 3.11 and the same zlib).
std::string gzip_compress(std::string_view data);

}  // namespace entimg::mock
