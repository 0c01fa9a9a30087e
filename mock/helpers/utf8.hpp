#pragma once
// Code points of UTF-8 text, and Python's notion of white space, for the modules that read
// names and numbers the way Python and Django do.
#include <string_view>

namespace entimg::mock::detail {

/// Decodes the code point at s[i] and advances i; a sequence cut short by the end is U+FFFD.
/// The text is already valid UTF-8 (query values are decoded with replacement).
inline char32_t next_code_point(std::string_view s, std::size_t& i) {
  const auto b0 = static_cast<unsigned char>(s[i]);
  const std::size_t n = b0 < 0x80 ? 1 : b0 < 0xE0 ? 2 : b0 < 0xF0 ? 3 : 4;
  if (i + n > s.size()) {
    i = s.size();
    return 0xFFFD;
  }
  char32_t c = n == 1 ? b0 : n == 2 ? (b0 & 0x1Fu) : n == 3 ? (b0 & 0x0Fu) : (b0 & 0x07u);
  for (std::size_t k = 1; k < n; ++k)
    c = (c << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3Fu);
  i += n;
  return c;
}

/// str.isspace() of Python 3.11 (Unicode 14), generated with unicodedata.
inline bool is_python_space(char32_t c) {
  return (c >= 0x09 && c <= 0x0d) || (c >= 0x1c && c <= 0x20) || c == 0x85 || c == 0xa0 || c == 0x1680 ||
         (c >= 0x2000 && c <= 0x200a) || c == 0x2028 || c == 0x2029 || c == 0x202f || c == 0x205f ||
         c == 0x3000;
}

}  // namespace entimg::mock::detail
