// How many values a body holds, counted before a parser reads it (kMaxJsonValues, json_parse.hpp).
#include <cstring>
#include <string>

#include "json_parse.hpp"

namespace entimg::contract::detail {
namespace {

constexpr std::size_t kMaxStructurals = 4 * kMaxJsonValues;

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

bool ends_token(char c) {
  return is_space(c) || c == '"' || c == ',' || c == ':' || c == '[' || c == ']' || c == '{' || c == '}';
}

// The index just past the string whose opening quote is at `at`; text.size() when it never ends.
std::size_t past_string(std::string_view text, std::size_t at) {
  const char* const data = text.data();
  std::size_t from = at + 1;
  for (;;) {
    const void* found = std::memchr(data + from, '"', text.size() - from);
    if (found == nullptr) return text.size();
    const auto quote_at = static_cast<std::size_t>(static_cast<const char*>(found) - data);
    std::size_t backslashes = 0;
    while (quote_at - backslashes > from && data[quote_at - backslashes - 1] == '\\')
      ++backslashes;
    from = quote_at + 1;
    if (backslashes % 2 == 0) return from;
  }
}

}  // namespace

// A value is an opened array or object, a string or another token (a number, true, false, null); each colon
// marks the string before it as a key. Checked at commas, where no key is pending, so the count stops exact.
JsonCount count_values(std::string_view text) {
  std::size_t opened = 0, tokens = 0, colons = 0, structurals = 0;
  const auto values = [&] { return opened + tokens >= colons ? opened + tokens - colons : 0; };
  for (std::size_t i = 0; i < text.size();) {
    const char c = text[i];
    if (c == '"') {
      ++tokens;
      i = past_string(text, i);
      continue;
    }
    if (c == ',' || c == ':' || c == '[' || c == ']' || c == '{' || c == '}') {
      ++structurals;
      if (c == '[' || c == '{') ++opened;
      if (c == ':') ++colons;
      if (c == ',' && (values() > kMaxJsonValues || structurals > kMaxStructurals)) break;
      ++i;
      continue;
    }
    if (!is_space(c)) {
      ++tokens;
      while (i < text.size() && !ends_token(text[i]))
        ++i;
      continue;
    }
    ++i;
  }
  return {values(), structurals};
}

void check_value_count(std::string_view text) {
  if ((text.size() + 1) / 2 <= kMaxJsonValues) return;
  const JsonCount count = count_values(text);
  if (count.values > kMaxJsonValues)
    throw TooManyValues("it holds more than " + std::to_string(kMaxJsonValues) +
                        " values (arrays, objects, strings, numbers, literals: at most " +
                        std::to_string(kMaxJsonValues) + " are read)");
  if (count.structurals > kMaxStructurals)
    throw TooManyValues("it holds more than " + std::to_string(kMaxStructurals) +
                        " brackets, commas and colons (at most " + std::to_string(kMaxStructurals) +
                        " are read)");
}

}  // namespace entimg::contract::detail
