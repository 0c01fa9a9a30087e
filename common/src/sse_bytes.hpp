#pragma once
// Byte-class tests on 16 bytes at once, for the scans of uri_format.cpp and known_patterns.cpp; only where
// the compiler targets SSE2 (each caller keeps a byte-by-byte path for the rest).
#if defined(__SSE2__)
#include <emmintrin.h>

namespace entimg::common::detail {

/// 0xFF in each byte of v from lo to hi (inclusive), 0 elsewhere. Signed compares: bytes from 0x80 on are
/// negative and fall in no range of ASCII bounds.
inline __m128i bytes_in_range(__m128i v, char lo, char hi) {
  return _mm_and_si128(_mm_cmpgt_epi8(v, _mm_set1_epi8(static_cast<char>(lo - 1))),
                       _mm_cmplt_epi8(v, _mm_set1_epi8(static_cast<char>(hi + 1))));
}

}  // namespace entimg::common::detail
#endif
