#pragma once
// Generic URL text helpers (RFC 3986 / HTML form encoding). No endpoint rule lives here.
#include <array>
#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace entimg::common {

using QueryParams = std::vector<std::pair<std::string, std::string>>;

/// Decodes %XX escapes to bytes; invalid escapes stay as they are. With plus_as_space, '+' is ' '.
std::string percent_decode(std::string_view text, bool plus_as_space);

/// The bytes a percent-encoder leaves as they are, one flag per byte value.
using PercentSafe = std::array<bool, 256>;

/// Python's quote() safe set: letters, digits, "_.-~" and the bytes of extra.
constexpr PercentSafe quote_safe(std::string_view extra) noexcept {
  PercentSafe keep{};
  for (int c = 0; c < 256; ++c)
    keep[static_cast<std::size_t>(c)] = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                                        (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-' ||
                                        c == '~';
  for (const char c : extra)
    keep[static_cast<unsigned char>(c)] = true;
  return keep;
}

/// Appends byte as "%XX" with upper-case hex digits (as Python and Django write escapes).
void append_percent_escape(std::string& out, unsigned char byte);

/// Python's urllib.parse.quote: the bytes `safe` keeps stay, every other byte is %XX (' ' too). Writes at
/// most 3 * utf8.size() bytes from `at` and returns the end (for callers that size their buffer once).
char* write_quote(char* at, std::string_view utf8, const PercentSafe& safe) noexcept;
void append_quote(std::string& out, std::string_view utf8, const PercentSafe& safe);
/// quote(utf8, safe) as Python spells it: letters, digits, "_.-~" and the bytes of safe stay.
std::string quote(std::string_view utf8, std::string_view safe);

/// Python's urllib.parse.quote_plus with safe='' (what urlencode applies to keys and values, so DRF's
/// links): letters, digits and "_.-~" stay, ' ' is '+', every other byte %XX.
void append_quote_plus(std::string& out, std::string_view utf8);

/// A URL as it may stand in an HTTP request line: the bytes that cannot (controls, space, DEL, bytes
/// >= 0x80) are %XX, everything else, '%' and '+' included, is kept as given.
void append_request_line_safe(std::string& out, std::string_view url);

/// Replaces every ill-formed UTF-8 sequence with U+FFFD, one per maximal subpart (as Python and WHATWG do).
std::string utf8_replace_invalid(std::string_view bytes);

/// text cut to at most max bytes without splitting a UTF-8 sequence, with mark appended when cut (for
/// messages that quote server text).
std::string utf8_cut(std::string text, std::size_t max, std::string_view mark);

/// Splits an application/x-www-form-urlencoded query on '&' only, keeping blank values and
/// repeated keys in order; "key" alone is ("key", ""); names and values are decoded as UTF-8.
QueryParams parse_query(std::string_view query);

/// The first value of key (or nullptr); the last value with last_value().
const std::string* first_value(const QueryParams& params, std::string_view key);
const std::string* last_value(const QueryParams& params, std::string_view key);

/// Parts of an absolute URL "scheme://authority/path?query#fragment"; ok is false when it is not one.
struct UrlParts {
  bool ok = false;
  std::string scheme;     ///< lower-cased
  std::string authority;  ///< host[:port] as written
  std::string path;       ///< "/" when empty
  std::string query;      ///< without '?'
  bool has_query = false;
};
UrlParts split_url(std::string_view url);

}  // namespace entimg::common
