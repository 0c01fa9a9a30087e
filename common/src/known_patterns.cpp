#include "known_patterns.hpp"

#include <array>
#include <cstddef>
#include <cstdint>

#include "entimg/common/ascii.hpp"

#include "sse_bytes.hpp"

namespace entimg::common::detail {
namespace {

// The patterns' texts as JSON Schema files hold them (after JSON's unescaping).
constexpr std::string_view kImage =
    R"(^https?://(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::[0-9]{1,5})?(?:/(?:[A-Za-z0-9._~!$&'()*+,;=:@-]|%[0-9A-Fa-f]{2})*){0,8}/media/filer_public/[0-9a-f]{2}/[0-9a-f]{2}/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/(?:[A-Za-z0-9._~!$&'()*+,;=:@-]|%[0-9A-Fa-f]{2})+$)";
constexpr std::string_view kFile =
    R"(^filer_public/[0-9a-f]{2}/[0-9a-f]{2}/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/[^/]+$)";
constexpr std::string_view kMime = R"(^(?:image/[a-z0-9.+-]+)?$)";

enum PatternClass : std::uint8_t {
  kSegment = 1,   // [A-Za-z0-9._~!$&'()*+,;=:@-], a path segment's character but for %XX
  kHost = 2,      // [A-Za-z0-9.-]
  kLiteral = 4,   // [0-9A-Fa-f:.], inside an IP literal's brackets
  kLowerHex = 8,  // [0-9a-f]
  kMimeSub = 16,  // [a-z0-9.+-]
};

constexpr bool in(std::string_view set, char c) {
  return set.find(c) != std::string_view::npos;
}

constexpr std::array<std::uint8_t, 256> kPatternClasses = [] {
  std::array<std::uint8_t, 256> table{};
  for (int i = 0; i < 128; ++i) {
    const char c = static_cast<char>(i);
    const bool alnum = ascii_alpha(c) || ascii_digit(c);
    const bool lower_hex = ascii_digit(c) || (c >= 'a' && c <= 'f');
    table[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(
        (alnum || in("._~!$&'()*+,;=:@-", c) ? kSegment : 0) | (alnum || in(".-", c) ? kHost : 0) |
        (ascii_hex(c) || in(":.", c) ? kLiteral : 0) | (lower_hex ? kLowerHex : 0) |
        ((c >= 'a' && c <= 'z') || ascii_digit(c) || in(".+-", c) ? kMimeSub : 0));
  }
  return table;
}();

bool is(char c, PatternClass k) {
  return (kPatternClasses[static_cast<unsigned char>(c)] & k) != 0;
}

// Every character of text is of class k.
bool all(std::string_view text, PatternClass k) {
  for (const char c : text)
    if (!is(c, k)) return false;
  return true;
}

// (?:[A-Za-z0-9._~!$&'()*+,;=:@-]|%[0-9A-Fa-f]{2})*, with '/' also allowed when `slashes`.
bool segment_chars(std::string_view text, bool slashes) {
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (is(c, kSegment) || (slashes && c == '/')) continue;
    if (c != '%' || i + 2 >= text.size() || !ascii_hex(text[i + 1]) || !ascii_hex(text[i + 2])) return false;
    i += 2;
  }
  return true;
}

// [0-9a-f]{2}/[0-9a-f]{2}/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/ : django-filer's
// two shard folders and the UUID folder, 43 characters; 'h' stands for a lowercase hex digit. That the
// folders repeat the uuid's first digits is the contract suite's file_layout rule, not the pattern's
// (docs/schema.md).
constexpr std::string_view kShardForm = "hh/hh/hhhhhhhh-hhhh-hhhh-hhhh-hhhhhhhhhhhh/";
constexpr std::size_t kShards = kShardForm.size();
#if defined(__SSE2__)
// 16 characters against 16 of kShardForm, at once: the digits are random, so a loop over them mispredicts.
bool shard_block(const char* text, const char* form) {
  const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(text));
  const __m128i f = _mm_loadu_si128(reinterpret_cast<const __m128i*>(form));
  const __m128i hex = _mm_or_si128(bytes_in_range(v, '0', '9'), bytes_in_range(v, 'a', 'f'));
  const __m128i need_hex = _mm_cmpeq_epi8(f, _mm_set1_epi8('h'));
  const __m128i ok =
      _mm_or_si128(_mm_and_si128(need_hex, hex), _mm_andnot_si128(need_hex, _mm_cmpeq_epi8(v, f)));
  return _mm_movemask_epi8(ok) == 0xFFFF;
}
#endif

bool shards(std::string_view text) {
  if (text.size() != kShards) return false;
  const char* p = text.data();
#if defined(__SSE2__)
  // Three blocks, the last overlapping the second, cover the 43 characters.
  const char* form = kShardForm.data();
  return shard_block(p, form) && shard_block(p + 16, form + 16) &&
         shard_block(p + kShards - 16, form + kShards - 16);
#else
  for (std::size_t i = 0; i < kShards; ++i)
    if (kShardForm[i] == 'h' ? !is(p[i], kLowerHex) : p[i] != kShardForm[i]) return false;
  return true;
#endif
}

// The image's scheme, host and port: where what follows them starts, or npos.
std::size_t after_authority(std::string_view text) {
  std::size_t i = text.starts_with("https://") ? 8 : text.starts_with("http://") ? 7 : std::string_view::npos;
  if (i == std::string_view::npos) return i;
  const std::size_t host = i;
  if (i < text.size() && text[i] == '[') {  // \[[0-9A-Fa-f:.]+\]
    for (++i; i < text.size() && is(text[i], kLiteral);)
      ++i;
    if (i == host + 1 || i == text.size() || text[i] != ']') return std::string_view::npos;
    ++i;
  } else {  // [A-Za-z0-9.-]+ : the class holds neither ':' nor '/', so the host is the longest run
    while (i < text.size() && is(text[i], kHost))
      ++i;
    if (i == host) return std::string_view::npos;
  }
  if (i < text.size() && text[i] == ':') {  // (?::[0-9]{1,5})? : only '/' may follow the digits
    const std::size_t port = ++i;
    while (i < text.size() && ascii_digit(text[i]))
      ++i;
    if (i == port || i - port > 5) return std::string_view::npos;
  }
  return i;
}

// (?:/...){0,8} before /media/: a prefix of at most this many segments (a bounded loop, which Specmatic's
// generator can produce from where an unbounded one made it hang).
constexpr std::size_t kMaxPrefixSegments = 8;

std::size_t slashes(std::string_view text) {
  std::size_t n = 0;
  for (const char c : text)
    n += c == '/' ? 1 : 0;
  return n;
}

// The name after the last '/' holds no '/', so the last slash fixes where the media tail starts.
bool image(std::string_view text) {
  constexpr std::string_view kMedia = "/media/filer_public/";
  const std::size_t start = after_authority(text);
  if (start == std::string_view::npos) return false;
  const std::size_t last = text.rfind('/');
  if (last == std::string_view::npos || last + 1 == text.size()) return false;
  if (last < start + kMedia.size() + kShards - 1) return false;
  const std::size_t tail = last + 1 - kShards - kMedia.size();
  const std::string_view path = text.substr(start, tail - start);
  return text.substr(tail, kMedia.size()) == kMedia && shards(text.substr(tail + kMedia.size(), kShards)) &&
         segment_chars(text.substr(last + 1), false) &&
         (path.empty() ||
          (path[0] == '/' && segment_chars(path, true) && slashes(path) <= kMaxPrefixSegments));
}

bool file(std::string_view text) {
  constexpr std::string_view kFolder = "filer_public/";
  if (text.size() <= kFolder.size() + kShards || !text.starts_with(kFolder)) return false;
  return shards(text.substr(kFolder.size(), kShards)) &&
         text.find('/', kFolder.size() + kShards) == std::string_view::npos;
}

bool mime(std::string_view text) {
  return text.empty() || (text.size() > 6 && text.starts_with("image/") && all(text.substr(6), kMimeSub));
}

// A text the image pattern matches is "http" or "https", "://", a host of [A-Za-z0-9.-] or an IP literal, an
// optional port of digits, then path segments of pchar and %HH: an RFC 3986 URI with nothing for is_uri to
// refuse, as long as the host is not an IP literal, whose brackets the pattern checks only loosely.
bool image_is_uri(std::string_view matched) {
  return matched[matched[4] == 's' ? 8 : 7] != '[';
}

}  // namespace

PatternMatcher known_pattern(std::string_view pattern) {
  if (pattern == kImage) return image;
  if (pattern == kFile) return file;
  if (pattern == kMime) return mime;
  return nullptr;
}

PatternMatcher known_pattern_uri_proof(std::string_view pattern) {
  return pattern == kImage ? image_is_uri : nullptr;
}

}  // namespace entimg::common::detail
