#pragma once
// A scan of text for the first of a few characters, for the rules that read every record's URLs.
#include <cstddef>
#include <string_view>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace entimg::contract::detail {

// Where the first of the characters `stops` (a few) is in text, or its size. string_view::find_first_of
// calls memchr once per character of text, and a memchr per stop still made seven calls per record in
// image_matches_file: 16 bytes are compared with every stop at once, the last block overlapping the one
// before it.
inline std::size_t first_of(std::string_view text, std::string_view stops) {
  const auto is_stop = [stops](char c) {
    for (const char stop : stops)
      if (c == stop) return true;
    return false;
  };
#if defined(__SSE2__)
  if (text.size() >= 16) {
    const auto hits = [&](std::size_t at) {
      const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(text.data() + at));
      __m128i hit = _mm_setzero_si128();
      for (const char stop : stops)
        hit = _mm_or_si128(hit, _mm_cmpeq_epi8(v, _mm_set1_epi8(stop)));
      return static_cast<unsigned>(_mm_movemask_epi8(hit));
    };
    std::size_t at = 0;
    for (; at + 16 <= text.size(); at += 16)
      if (const unsigned mask = hits(at); mask != 0)
        return at + static_cast<std::size_t>(__builtin_ctz(mask));
    if (at == text.size()) return at;
    const std::size_t last = text.size() - 16;  // the bytes before `at` are known to be no stop
    const unsigned mask = hits(last) >> (at - last);
    return mask != 0 ? at + static_cast<std::size_t>(__builtin_ctz(mask)) : text.size();
  }
#endif
  for (std::size_t i = 0; i < text.size(); ++i)
    if (is_stop(text[i])) return i;
  return text.size();
}

}  // namespace entimg::contract::detail
