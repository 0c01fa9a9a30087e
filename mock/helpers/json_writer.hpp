#pragma once
// Writes JSON byte for byte as DRF's JSONRenderer does (reference §3.8): Python's json.dumps with
// ensure_ascii=False, compact separators or, for "Accept: application/json; indent=N", Python's
// indented layout with (',', ': '); U+2028 and U+2029 escaped. Writing directly into one buffer
// keeps a page render free of a DOM and of per-field allocations.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace entimg::mock::detail {

class JsonWriter {
 public:
  /// indent 0 is compact; 1..8 as DRF clamps it.
  explicit JsonWriter(std::string& out, int indent = 0) : out_(out), indent_(indent) {}

  void begin_object() { open('{'); }
  void end_object() { close('}'); }
  void begin_array() { open('['); }
  void end_array() { close(']'); }
  /// Writes the key of the next member of the current object.
  void key(std::string_view name);
  void string(std::string_view utf8);
  void integer(std::int64_t value);
  /// An integer kept as decimal digits (for numbers of any size).
  void raw_number(std::string_view digits);
  void null();
  void boolean(bool value) { raw_number(value ? "true" : "false"); }
  void nullable_string(const std::optional<std::string>& value) { value ? string(*value) : null(); }
  void nullable_integer(const std::optional<std::int64_t>& value) { value ? integer(*value) : null(); }
  /// Compact output (indent 0): a value's bytes do not depend on where it stands.
  bool compact() const { return indent_ == 0; }
  /// Starts a value whose bytes the caller appends to the returned buffer itself, whole.
  std::string& raw_value() {
    before_value();
    return out_;
  }

 private:
  void open(char bracket);
  void close(char bracket);
  void before_value();
  void newline();

  std::string& out_;
  int indent_;
  int depth_ = 0;
  bool first_ = true;       // no member written yet at this depth
  bool after_key_ = false;  // the next value follows a key
};

/// Appends `text` as a JSON string literal (with quotes) the way Python's json module writes it.
void append_json_string(std::string& out, std::string_view utf8);

/// The most bytes a JSON string literal of `n` bytes of text takes (each byte \u00XX, and the quotes).
constexpr std::size_t json_string_bound(std::size_t n) {
  return 6 * n + 2;
}
/// Writes the literal append_json_string appends at `at`, which has room for json_string_bound bytes;
/// returns the end of what it wrote.
char* write_json_string(char* at, std::string_view utf8);
/// write_json_string without the quotes.
char* write_json_string_content(char* at, std::string_view utf8);

}  // namespace entimg::mock::detail
