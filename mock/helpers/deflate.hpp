#pragma once
// zlib's roles in the mock's answers: the placeholder PNG's zlib stream and CRC-32, and --gzip's gzip
// member (gzip_compress, which gzip.hpp's middleware calls). Natively zlib does them (deflate_zlib.cpp);
// the WebAssembly build, which has no zlib, hands them to pako, zlib's JavaScript port, whose bytes are
// zlib's (mock/wasm/deflate_js.cpp; the differential test holds them equal: docs/npm.md).
#include <cstdint>
#include <string>
#include <string_view>

namespace entimg::mock::detail {

/// zlib's compress2(data, level): a zlib stream (RFC 1950) at that level, memory level 8.
std::string zlib_compress(std::string_view data, int level);

/// CRC-32 (ISO-HDLC, as PNG chunks and gzip carry it).
std::uint32_t crc32_of(std::string_view data);

}  // namespace entimg::mock::detail

namespace entimg::mock {

/// Python's gzip.compress(data, compresslevel=6, mtime=0), as Django's compress_string calls it, byte for
/// byte (Python 3.11 and the same zlib).
std::string gzip_compress(std::string_view data);

}  // namespace entimg::mock
