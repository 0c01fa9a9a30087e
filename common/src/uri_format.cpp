#include "uri_format.hpp"

#include <array>
#include <cstddef>
#include <cstdint>

#include "entimg/common/ascii.hpp"
#include "sse_bytes.hpp"

// RFC 3986 Appendix A, read as a one-pass check. The path decides most of it: every character of an
// authority but the brackets of an IP literal is also a path character, and ajv-formats lets "scheme://"
// be followed by a path alone (an empty authority), so a path made of path characters is a URI whatever
// its slashes; only a bracketed host needs the authority read part by part.
namespace entimg::common::detail {
namespace {

constexpr bool is_unreserved(char c) {
  return ascii_alpha(c) || ascii_digit(c) || c == '-' || c == '.' || c == '_' || c == '~';
}
constexpr bool is_sub_delim(char c) {
  switch (c) {
    case '!':
    case '$':
    case '&':
    case '\'':
    case '(':
    case ')':
    case '*':
    case '+':
    case ',':
    case ';':
    case '=':
      return true;
    default:
      return false;
  }
}

// The classes of RFC 3986's characters, one bit each, so a set of them is a mask; a table by byte, as the
// check runs on every record's image URL.
enum Class : std::uint8_t {
  kUnreserved = 1,
  kSubDelim = 2,
  kColon = 4,
  kAt = 8,
  kSlash = 16,
  kQuestion = 32,
};
constexpr unsigned kPchar = kUnreserved | kSubDelim | kColon | kAt;
constexpr unsigned kPath = kPchar | kSlash;
constexpr unsigned kQuery = kPath | kQuestion;  // query and fragment
constexpr unsigned kRegName = kUnreserved | kSubDelim;
constexpr unsigned kUserinfo = kRegName | kColon;

constexpr std::array<std::uint8_t, 256> kClasses = [] {
  std::array<std::uint8_t, 256> table{};
  for (int c = 0; c < 256; ++c) {
    const char ch = static_cast<char>(c);
    table[static_cast<std::size_t>(c)] =
        static_cast<std::uint8_t>((is_unreserved(ch) ? kUnreserved : 0) | (is_sub_delim(ch) ? kSubDelim : 0) |
                                  (ch == ':' ? kColon : 0) | (ch == '@' ? kAt : 0) |
                                  (ch == '/' ? kSlash : 0) | (ch == '?' ? kQuestion : 0));
  }
  return table;
}();

unsigned class_of(char c) {
  return kClasses[static_cast<unsigned char>(c)];
}

// How many characters from `at` on are path characters but '%' (the class kPath), checked 16 at a time where
// SSE2 is there: an image URL is a hundred of them, and a byte-by-byte loop was a third of the record's
// format check. Stops at the first other character, or within 16 of the end, for the loop to go on byte by
// byte.
std::size_t plain_path_run([[maybe_unused]] std::string_view text, std::size_t at) {
  std::size_t i = at;
#if defined(__SSE2__)
  for (; i + 16 <= text.size(); i += 16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(text.data() + i));
    const auto range = [&v](char lo, char hi) { return bytes_in_range(v, lo, hi); };
    const auto is = [&v](char c) { return _mm_cmpeq_epi8(v, _mm_set1_epi8(c)); };
    // &'()*+,-./0-9:;  @A-Z  a-z  ! $ = _ ~
    __m128i ok = _mm_or_si128(_mm_or_si128(range('&', ';'), range('@', 'Z')), range('a', 'z'));
    ok = _mm_or_si128(ok, _mm_or_si128(_mm_or_si128(is('!'), is('$')), _mm_or_si128(is('='), is('_'))));
    ok = _mm_or_si128(ok, is('~'));
    const auto mask = static_cast<unsigned>(_mm_movemask_epi8(ok));
    if (mask != 0xFFFFU) return i - at + static_cast<std::size_t>(__builtin_ctz(~mask));
  }
#endif
  return i - at;
}

// Every character in one of the classes of `allowed`, or a '%' with two hex digits.
bool all_in(std::string_view text, unsigned allowed) {
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if ((class_of(c) & allowed) != 0) continue;
    if (c != '%' || i + 2 >= text.size() || !ascii_hex(text[i + 1]) || !ascii_hex(text[i + 2])) return false;
    i += 2;
  }
  return true;
}

bool is_port(std::string_view text) {  // "" or ":" *DIGIT
  if (text.empty()) return true;
  if (text[0] != ':') return false;
  for (std::size_t i = 1; i < text.size(); ++i)
    if (!ascii_digit(text[i])) return false;
  return true;
}

// A dotted quad; ajv-formats reads each part as [01]?\d\d? or 2[0-4]\d or 25[0-5], so "010" is 10.
bool is_ipv4(std::string_view text) {
  int parts = 0;
  std::size_t i = 0;
  for (;;) {
    std::size_t digits = 0;
    int value = 0;
    while (i < text.size() && ascii_digit(text[i]) && digits < 4) {
      value = value * 10 + (text[i] - '0');
      ++digits;
      ++i;
    }
    if (digits == 0 || digits > 3 || value > 255) return false;
    if (++parts == 4) return i == text.size();
    if (i == text.size() || text[i] != '.') return false;
    ++i;
  }
}

// The 16-bit pieces of "h16:h16:...", an IPv4 tail counting two when allowed; -1 when malformed.
int pieces(std::string_view text, bool ipv4_tail) {
  if (text.empty()) return 0;
  int count = 0;
  std::size_t start = 0;
  for (;;) {
    const std::size_t colon = text.find(':', start);
    const std::string_view piece =
        text.substr(start, colon == std::string_view::npos ? colon : colon - start);
    if (colon == std::string_view::npos && ipv4_tail && piece.find('.') != std::string_view::npos)
      return is_ipv4(piece) ? count + 2 : -1;
    if (piece.empty() || piece.size() > 4) return -1;
    for (const char c : piece)
      if (!ascii_hex(c)) return -1;
    ++count;
    if (colon == std::string_view::npos) return count;
    start = colon + 1;
  }
}

// RFC 3986's nine IPv6address forms: eight pieces, or at most seven around one "::".
bool is_ipv6(std::string_view text) {
  const std::size_t gap = text.find("::");
  if (gap == std::string_view::npos) return pieces(text, true) == 8;
  const std::string_view after = text.substr(gap + 2);
  if (after.find("::") != std::string_view::npos) return false;
  const int before_count = pieces(text.substr(0, gap), false);
  const int after_count = pieces(after, true);
  return before_count >= 0 && after_count >= 0 && before_count + after_count <= 7;
}

bool is_ipvfuture(std::string_view text) {  // "v" 1*HEXDIG "." 1*( unreserved / sub-delims / ":" )
  if (text.size() < 4 || (text[0] != 'v' && text[0] != 'V')) return false;
  std::size_t i = 1;
  while (i < text.size() && ascii_hex(text[i]))
    ++i;
  if (i == 1 || i + 1 >= text.size() || text[i] != '.') return false;
  for (++i; i < text.size(); ++i)
    if (!is_unreserved(text[i]) && !is_sub_delim(text[i]) && text[i] != ':') return false;
  return true;
}

// [ userinfo "@" ] host [ ":" port ], the host being an IP literal, an IPv4 address or a reg-name.
bool is_authority(std::string_view text) {
  if (const std::size_t at = text.find('@'); at != std::string_view::npos) {
    if (!all_in(text.substr(0, at), kUserinfo)) return false;
    text.remove_prefix(at + 1);
  }
  if (!text.empty() && text[0] == '[') {
    const std::size_t close = text.find(']');
    if (close == std::string_view::npos) return false;
    const std::string_view literal = text.substr(1, close - 1);
    return (is_ipv6(literal) || is_ipvfuture(literal)) && is_port(text.substr(close + 1));
  }
  const std::size_t colon = text.find(':');
  return all_in(text.substr(0, colon), kRegName) &&
         (colon == std::string_view::npos || is_port(text.substr(colon)));
}

// "//" authority path-abempty, where `text` is what follows the slashes.
bool is_authority_and_path(std::string_view text) {
  const std::size_t slash = text.find('/');
  return is_authority(text.substr(0, slash)) &&
         (slash == std::string_view::npos || all_in(text.substr(slash), kPath));
}

// `path_chars`: whether every character of path is a path character (the caller's scan found out).
bool is_hier_part(std::string_view path, bool path_chars) {
  if (path.empty()) return false;  // ajv-formats has no path-empty
  if (path_chars) return true;
  if (path[0] != '/') return false;
  if (path.size() > 1 && path[1] == '/') return is_authority_and_path(path.substr(2));
  return is_authority_and_path(path.substr(1));  // "scheme:/" then an authority, as ajv-formats allows
}

}  // namespace

bool is_uri(std::string_view text) {
  // scheme ":", the scheme ending at the first colon
  if (text.empty() || !ascii_alpha(text[0])) return false;
  std::size_t colon = 1;
  for (; colon < text.size() && text[colon] != ':'; ++colon) {
    const char c = text[colon];
    if (!ascii_alpha(c) && !ascii_digit(c) && c != '+' && c != '-' && c != '.') return false;
  }
  if (colon == text.size()) return false;
  const std::string_view rest = text.substr(colon + 1);
  // One pass finds where the query or the fragment starts and whether the path before it is made of path
  // characters only, which settles most URIs.
  std::size_t tail = 0;
  bool path_chars = true;
  for (; tail < rest.size(); ++tail) {
    tail += plain_path_run(rest, tail);
    if (tail == rest.size()) break;
    const char c = rest[tail];
    if ((class_of(c) & kPath) != 0) continue;
    if (c == '?' || c == '#') break;
    if (c == '%' && tail + 2 < rest.size() && ascii_hex(rest[tail + 1]) && ascii_hex(rest[tail + 2])) {
      tail += 2;
      continue;
    }
    path_chars = false;
  }
  if (!is_hier_part(rest.substr(0, tail), path_chars)) return false;
  if (tail == rest.size()) return true;
  std::string_view query = rest.substr(tail);
  std::string_view fragment;
  if (const std::size_t hash = query.find('#'); hash != std::string_view::npos) {
    fragment = query.substr(hash + 1);
    query = query.substr(0, hash);
  }
  if (!query.empty()) query.remove_prefix(1);  // the '?'
  return all_in(query, kQuery) && all_in(fragment, kQuery);
}

}  // namespace entimg::common::detail
