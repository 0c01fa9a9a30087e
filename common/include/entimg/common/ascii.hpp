#pragma once
// ASCII-only text helpers. HTTP header names, media types, schemes and hosts compare without case in
// ASCII alone (RFC 9110 §5.1), never by the C locale, so these never call std::tolower.
#include <algorithm>
#include <charconv>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

namespace entimg::common {

/// HTTP's optional white space (RFC 9110 §5.6.3).
inline constexpr std::string_view kOws = " \t";
/// ASCII white space as C's isspace and Python's bytes.strip() know it.
inline constexpr std::string_view kAsciiSpace = " \t\n\r\v\f";

/// The ASCII character classes ('A'-'Z' and 'a'-'z'; '0'-'9'; hex digits of either case), never the C
/// locale's: a byte above 0x7F is in none of them.
constexpr bool ascii_alpha(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
constexpr bool ascii_digit(char c) {
  return c >= '0' && c <= '9';
}
constexpr bool ascii_hex(char c) {
  return ascii_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/// 'A'-'Z' to 'a'-'z'; every other byte as it is.
constexpr char ascii_lower(char c) {
  return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

/// 'a'-'z' to 'A'-'Z'; every other byte as it is.
constexpr char ascii_upper(char c) {
  return c >= 'a' && c <= 'z' ? static_cast<char>(c - 'a' + 'A') : c;
}

/// Lowers (raises) 'A'-'Z' ('a'-'z') in place, for text the caller already owns.
inline void ascii_lower_in_place(std::string& text) {
  std::transform(text.begin(), text.end(), text.begin(), ascii_lower);
}
inline void ascii_upper_in_place(std::string& text) {
  std::transform(text.begin(), text.end(), text.begin(), ascii_upper);
}

/// The text with 'A'-'Z' lowered.
inline std::string ascii_lowered(std::string_view text) {
  std::string out(text);
  ascii_lower_in_place(out);
  return out;
}

/// Equal but for the case of ASCII letters.
constexpr bool iequals_ascii(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(),
                                            [](char x, char y) { return ascii_lower(x) == ascii_lower(y); });
}

/// Starts with prefix, but for the case of ASCII letters.
constexpr bool istarts_with_ascii(std::string_view text, std::string_view prefix) {
  return text.size() >= prefix.size() && iequals_ascii(text.substr(0, prefix.size()), prefix);
}

/// The text without leading and trailing characters from `space`.
constexpr std::string_view trim(std::string_view text, std::string_view space = kOws) {
  const auto first = text.find_first_not_of(space);
  if (first == std::string_view::npos) return {};
  return text.substr(first, text.find_last_not_of(space) - first + 1);
}

/// The value of text made of ASCII digits only (no sign, no space), if it is at most max.
inline std::optional<std::uint64_t> digits(std::string_view text,
                                           std::uint64_t max = std::numeric_limits<std::uint64_t>::max()) {
  std::uint64_t n = 0;
  if (text.empty() || text.find_first_not_of("0123456789") != std::string_view::npos) return std::nullopt;
  if (std::from_chars(text.data(), text.data() + text.size(), n).ec != std::errc{} || n > max)
    return std::nullopt;
  return n;
}

}  // namespace entimg::common
