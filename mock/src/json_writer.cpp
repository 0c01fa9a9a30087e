#include "json_writer.hpp"

#include <array>
#include <charconv>

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

}  // namespace

void append_json_string(std::string& out, std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  out.push_back('"');
  std::size_t run = 0;  // start of the pending run of bytes that need no escaping
  for (std::size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (!kMaybeEscaped[c]) continue;  // the common case: part of the pending run
    const char* escape = nullptr;
    char buf[7];
    if (c == '"')
      escape = "\\\"";
    else if (c == '\\')
      escape = "\\\\";
    else if (c == '\n')
      escape = "\\n";
    else if (c == '\r')
      escape = "\\r";
    else if (c == '\t')
      escape = "\\t";
    else if (c == '\b')
      escape = "\\b";
    else if (c == '\f')
      escape = "\\f";
    else if (c < 0x20) {
      buf[0] = '\\', buf[1] = 'u', buf[2] = '0', buf[3] = '0', buf[4] = kHex[c >> 4], buf[5] = kHex[c & 15];
      buf[6] = 0;
      escape = buf;
    } else if (c == 0xE2 && i + 2 < s.size() && static_cast<unsigned char>(s[i + 1]) == 0x80 &&
               (static_cast<unsigned char>(s[i + 2]) == 0xA8 ||
                static_cast<unsigned char>(s[i + 2]) == 0xA9)) {
      // DRF's JSONRenderer escapes the JavaScript line terminators U+2028 and U+2029.
      out.append(s.substr(run, i - run));
      out.append(static_cast<unsigned char>(s[i + 2]) == 0xA8 ? "\\u2028" : "\\u2029");
      i += 2;
      run = i + 1;
      continue;
    }
    if (escape) {
      out.append(s.substr(run, i - run));
      out.append(escape);
      run = i + 1;
    }
  }
  out.append(s.substr(run));
  out.push_back('"');
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
