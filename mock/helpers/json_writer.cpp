#include "json_writer.hpp"

#include <array>
#include <charconv>
#include <cstring>

namespace entimg::mock::detail {
namespace {

// Bytes that may need escaping: control characters, '"', '\\', and 0xE2, which starts U+2028/2029.
constexpr std::array<bool, 256> kMaybeEscaped = [] {
  std::array<bool, 256> table{};
  for (int c = 0; c < 0x20; ++c)
    table[static_cast<std::size_t>(c)] = true;
  table['"'] = table['\\'] = table[0xE2] = true;
  return table;
}();

constexpr std::uint64_t kOnes = 0x0101010101010101ULL, kHighs = 0x8080808080808080ULL;

// Whether some byte of the word is zero / below 0x20 (exact as a yes or no: the borrow of a byte can only
// mark a byte above one that is marked already).
constexpr bool has_zero_byte(std::uint64_t w) {
  return ((w - kOnes) & ~w & kHighs) != 0;
}
constexpr bool has_byte_below_space(std::uint64_t w) {
  return ((w - 0x20 * kOnes) & ~w & kHighs) != 0;
}

// Whether a word holds one of kMaybeEscaped's bytes (exact: no byte that needs no escaping counts).
constexpr bool needs_escaping(std::uint64_t w) {
  return has_byte_below_space(w) || has_zero_byte(w ^ ('"' * kOnes)) || has_zero_byte(w ^ ('\\' * kOnes)) ||
         has_zero_byte(w ^ (0xE2 * kOnes));
}

// How many bytes at the start of `s` need no escaping, eight at a time (a short tail padded with spaces);
// plain C++, no intrinsics: the mock is compiled to WebAssembly too.
std::size_t plain_prefix(std::string_view s) {
  if (s.empty()) return 0;
  std::size_t i = 0;
  std::uint64_t w = 0;
  for (; i + 8 <= s.size(); i += 8) {
    std::memcpy(&w, s.data() + i, 8);
    if (needs_escaping(w)) break;
  }
  if (i + 8 > s.size()) {
    w = ' ' * kOnes;
    std::memcpy(&w, s.data() + i, s.size() - i);
    if (!needs_escaping(w)) return s.size();
  }
  while (i < s.size() && !kMaybeEscaped[static_cast<unsigned char>(s[i])])
    ++i;
  return i;
}

char* copy(char* at, std::string_view bytes) {
  if (!bytes.empty()) std::memcpy(at, bytes.data(), bytes.size());  // an empty view's data may be null
  return at + bytes.size();
}

}  // namespace

char* write_json_string_content(char* at, std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  for (;;) {
    const std::size_t plain = plain_prefix(s);
    at = copy(at, s.substr(0, plain));
    s.remove_prefix(plain);
    if (s.empty()) return at;
    const auto c = static_cast<unsigned char>(s[0]);
    s.remove_prefix(1);
    switch (c) {
      case '"':
        at = copy(at, "\\\"");
        break;
      case '\\':
        at = copy(at, "\\\\");
        break;
      case '\n':
        at = copy(at, "\\n");
        break;
      case '\r':
        at = copy(at, "\\r");
        break;
      case '\t':
        at = copy(at, "\\t");
        break;
      case '\b':
        at = copy(at, "\\b");
        break;
      case '\f':
        at = copy(at, "\\f");
        break;
      case 0xE2:
        // DRF's JSONRenderer escapes the JavaScript line terminators U+2028 and U+2029.
        if (s.size() >= 2 && static_cast<unsigned char>(s[0]) == 0x80 &&
            (static_cast<unsigned char>(s[1]) == 0xA8 || static_cast<unsigned char>(s[1]) == 0xA9)) {
          at = copy(at, static_cast<unsigned char>(s[1]) == 0xA8 ? "\\u2028" : "\\u2029");
          s.remove_prefix(2);
        } else {
          *at++ = static_cast<char>(c);
        }
        break;
      default:  // another control character
        at = copy(at, "\\u00");
        *at++ = kHex[c >> 4];
        *at++ = kHex[c & 15];
    }
  }
}

char* write_json_string(char* at, std::string_view utf8) {
  *at++ = '"';
  at = write_json_string_content(at, utf8);
  *at++ = '"';
  return at;
}

void append_json_string(std::string& out, std::string_view s) {
  const std::size_t at = out.size();
  out.resize(at + (plain_prefix(s) == s.size() ? s.size() + 2 : json_string_bound(s.size())));
  out.resize(static_cast<std::size_t>(write_json_string(out.data() + at, s) - out.data()));
}

void JsonWriter::newline() {
  out_.push_back('\n');
  out_.append(static_cast<std::size_t>(depth_ * indent_), ' ');
}

void JsonWriter::before_value() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (depth_ == 0) return;
  if (!first_) out_.push_back(',');
  if (indent_ > 0) newline();
  first_ = false;
}

void JsonWriter::open(char bracket) {
  before_value();
  out_.push_back(bracket);
  ++depth_;
  first_ = true;
}

void JsonWriter::close(char bracket) {
  --depth_;
  if (indent_ > 0 && !first_) newline();  // Python writes empty containers as [] and {}
  out_.push_back(bracket);
  first_ = false;
}

void JsonWriter::key(std::string_view name) {
  before_value();
  append_json_string(out_, name);
  out_.append(indent_ > 0 ? ": " : ":");
  after_key_ = true;
}

void JsonWriter::string(std::string_view utf8) {
  before_value();
  append_json_string(out_, utf8);
}

void JsonWriter::integer(std::int64_t value) {
  before_value();
  char buf[24];
  const auto result = std::to_chars(buf, buf + sizeof buf, value);
  out_.append(buf, result.ptr);
}

void JsonWriter::raw_number(std::string_view digits) {
  before_value();
  out_.append(digits);
}

void JsonWriter::null() {
  before_value();
  out_.append("null");
}

}  // namespace entimg::mock::detail
