#include "python_json.hpp"

#include <cstdio>
#include <utility>

#include "entimg/common/ascii.hpp"
#include "entimg/common/url.hpp"

namespace entimg::mock::detail {
namespace {

// The scanner of Python's json module (CPython 3.11, strict=True), reduced to what it accepts and the
// first error it raises. Positions are byte offsets here, turned into code points for the message.
class Scanner {
 public:
  explicit Scanner(std::string_view s) : s_(s) {}
  bool too_deep() const { return too_deep_; }

  std::optional<std::string> run() {
    std::size_t at = skip_ws(0);
    if (!value(at)) return message();
    at = skip_ws(at);
    if (at != s_.size()) fail("Extra data", at);
    return error_.empty() ? std::nullopt : message();
  }

 private:
  std::size_t skip_ws(std::size_t at) const {
    while (at < s_.size() && (s_[at] == ' ' || s_[at] == '\t' || s_[at] == '\n' || s_[at] == '\r'))
      ++at;
    return at;
  }
  bool fail(const char* what, std::size_t at) {
    if (error_.empty()) {
      error_ = what;
      error_at_ = at;
    }
    return false;
  }
  bool literal(std::size_t& at, std::string_view word) {
    if (s_.substr(at, word.size()) != word) return false;
    at += word.size();
    return true;
  }
  static bool digit(char c) { return c >= '0' && c <= '9'; }

  bool number(std::size_t& at) {
    std::size_t i = at;
    if (i < s_.size() && s_[i] == '-') ++i;
    if (i < s_.size() && s_[i] == '0') {
      ++i;
    } else if (i < s_.size() && digit(s_[i])) {
      while (i < s_.size() && digit(s_[i]))
        ++i;
    } else {
      return false;
    }
    if (i + 1 < s_.size() && s_[i] == '.' && digit(s_[i + 1])) {
      i += 2;
      while (i < s_.size() && digit(s_[i]))
        ++i;
    }
    if (i < s_.size() && (s_[i] == 'e' || s_[i] == 'E')) {
      std::size_t j = i + 1;
      if (j < s_.size() && (s_[j] == '+' || s_[j] == '-')) ++j;
      if (j < s_.size() && digit(s_[j])) {
        while (j < s_.size() && digit(s_[j]))
          ++j;
        i = j;
      }
    }
    at = i;
    return true;
  }

  bool string(std::size_t& at) {  // at: the opening quote
    const std::size_t start = at;
    std::size_t i = at + 1;
    while (true) {
      if (i >= s_.size()) return fail("Unterminated string starting at", start);
      const auto c = static_cast<unsigned char>(s_[i]);
      if (c == '"') break;
      if (c < 0x20) return fail("Invalid control character at", i);
      if (c == '\\') {
        if (i + 1 >= s_.size()) return fail("Unterminated string starting at", start);
        const char e = s_[i + 1];
        if (e == 'u') {
          for (std::size_t k = i + 2; k < i + 6; ++k)
            if (k >= s_.size() || !common::ascii_hex(s_[k])) return fail("Invalid \\uXXXX escape", i + 1);
          i += 6;
          continue;
        }
        if (std::string_view("\"\\/bfnrt").find(e) == std::string_view::npos)
          return fail("Invalid \\escape", i);
        i += 2;
        continue;
      }
      ++i;
    }
    at = i + 1;
    return true;
  }

  bool value(std::size_t& at) {
    if (at >= s_.size()) return fail("Expecting value", at);
    if (depth_ > kMaxDepth) {  // Python's RecursionError, which DRF does not catch: a 500
      too_deep_ = true;
      error_ = "too deep";
      raw_ = true;
      return false;
    }
    const char c = s_[at];
    if (c == '"') return string(at);
    if (c == '{') return object(at);
    if (c == '[') return array(at);
    if (literal(at, "null") || literal(at, "true") || literal(at, "false")) return true;
    for (const std::string_view constant : {"NaN", "Infinity", "-Infinity"}) {
      if (s_.substr(at, constant.size()) != constant) continue;
      // DRF's parse_constant: ValueError('Out of range float values are not JSON compliant: ' + repr(o))
      error_ = "Out of range float values are not JSON compliant: '" + std::string(constant) + "'";
      raw_ = true;
      return false;
    }
    if (number(at)) return true;
    return fail("Expecting value", at);
  }

  bool object(std::size_t& at) {
    const Nest nest(depth_);
    std::size_t i = skip_ws(at + 1);
    if (i < s_.size() && s_[i] == '}') {
      at = i + 1;
      return true;
    }
    while (true) {
      if (i >= s_.size() || s_[i] != '"') return fail("Expecting property name enclosed in double quotes", i);
      if (!string(i)) return false;
      i = skip_ws(i);
      if (i >= s_.size() || s_[i] != ':') return fail("Expecting ':' delimiter", i);
      i = skip_ws(i + 1);
      if (!value(i)) return false;
      i = skip_ws(i);
      if (i < s_.size() && s_[i] == '}') {
        at = i + 1;
        return true;
      }
      if (i >= s_.size() || s_[i] != ',') return fail("Expecting ',' delimiter", i);
      i = skip_ws(i + 1);
    }
  }

  bool array(std::size_t& at) {
    const Nest nest(depth_);
    std::size_t i = skip_ws(at + 1);
    if (i < s_.size() && s_[i] == ']') {
      at = i + 1;
      return true;
    }
    while (true) {
      if (!value(i)) return false;
      i = skip_ws(i);
      if (i < s_.size() && s_[i] == ']') {
        at = i + 1;
        return true;
      }
      if (i >= s_.size() || s_[i] != ',') return fail("Expecting ',' delimiter", i);
      i = skip_ws(i + 1);
    }
  }

  std::optional<std::string> message() const {
    if (raw_) return error_;
    // JSONDecodeError: "%s: line %d column %d (char %d)", counted in code points.
    std::size_t chars = 0, line = 1, column_start = 0;
    for (std::size_t i = 0; i < error_at_ && i < s_.size(); ++i) {
      if ((static_cast<unsigned char>(s_[i]) & 0xC0) == 0x80) continue;
      if (s_[i] == '\n') {
        ++line;
        column_start = chars + 1;
      }
      ++chars;
    }
    return error_ + ": line " + std::to_string(line) + " column " + std::to_string(chars - column_start + 1) +
           " (char " + std::to_string(chars) + ")";
  }

  // CPython's default recursion limit (1000) less the frames the parser itself runs in.
  static constexpr int kMaxDepth = 990;
  struct Nest {
    explicit Nest(int& depth) : depth_(++depth) {}
    ~Nest() { --depth_; }
    Nest(const Nest&) = delete;
    Nest& operator=(const Nest&) = delete;
    int& depth_;
  };

  std::string_view s_;
  std::string error_;
  std::size_t error_at_ = 0;
  bool raw_ = false;
  bool too_deep_ = false;
  int depth_ = 0;
};

}  // namespace

PythonJsonOutcome python_json_check(std::string_view text) {
  // codecs' UTF-8 stream reader first: an invalid byte is reported before any JSON is read, and a sequence
  // cut short by the end of the body is held back for more input that never comes (silently dropped).
  std::size_t i = 0;
  while (i < text.size()) {
    const auto c = static_cast<unsigned char>(text[i]);
    const std::size_t n = c < 0x80                  ? 1
                          : (c >= 0xC2 && c < 0xE0) ? 2
                          : (c >= 0xE0 && c < 0xF0) ? 3
                          : (c >= 0xF0 && c < 0xF5) ? 4
                                                    : 0;
    char buffer[112];
    if (n == 0) {
      std::snprintf(buffer, sizeof buffer,
                    "'utf-8' codec can't decode byte 0x%02x in position %zu: invalid start byte", c, i);
      return {buffer, false};
    }
    const std::string_view sequence = text.substr(i, n);
    // Each byte present after the lead must continue it (with the lead's own ranges for the second).
    bool continues = true;
    for (std::size_t j = 1; j < sequence.size() && continues; ++j) {
      const auto b = static_cast<unsigned char>(sequence[j]);
      unsigned char low = 0x80, high = 0xBF;
      if (j == 1 && c == 0xE0) low = 0xA0;
      if (j == 1 && c == 0xED) high = 0x9F;
      if (j == 1 && c == 0xF0) low = 0x90;
      if (j == 1 && c == 0xF4) high = 0x8F;
      continues = b >= low && b <= high;
    }
    if (!continues) {
      std::snprintf(buffer, sizeof buffer,
                    "'utf-8' codec can't decode byte 0x%02x in position %zu: invalid continuation byte", c,
                    i);
      return {buffer, false};
    }
    if (sequence.size() < n) {
      text = text.substr(0, i);  // cut short at the end: held back, never decoded
      break;
    }
    i += n;
  }
  if (text.starts_with("\xEF\xBB\xBF"))
    return {"Unexpected UTF-8 BOM (decode using utf-8-sig): line 1 column 1 (char 0)", false};
  Scanner scanner(text);
  auto error = scanner.run();
  if (scanner.too_deep()) return {std::nullopt, true};
  return {std::move(error), false};
}

}  // namespace entimg::mock::detail
