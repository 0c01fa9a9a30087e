#include "raw_json.hpp"

namespace entimg::contract::detail {
namespace {

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

std::size_t skip_space(std::string_view s, std::size_t i) {
  while (i < s.size() && is_space(s[i]))
    ++i;
  return i;
}

// s[i] is the opening quote; returns the index after the closing one (s.size() if unterminated).
std::size_t skip_string(std::string_view s, std::size_t i) {
  for (++i; i < s.size(); ++i) {
    if (s[i] == '\\') {
      ++i;
    } else if (s[i] == '"') {
      return i + 1;
    }
  }
  return s.size();
}

// One value from s[i] (no leading space); returns the index after it.
std::size_t skip_value(std::string_view s, std::size_t i) {
  if (i >= s.size()) return i;
  if (s[i] == '"') return skip_string(s, i);
  if (s[i] == '{' || s[i] == '[') {
    std::size_t depth = 0;
    while (i < s.size()) {
      const char c = s[i];
      if (c == '"') {
        i = skip_string(s, i);
        continue;
      }
      if (c == '{' || c == '[') ++depth;
      if (c == '}' || c == ']') {
        if (--depth == 0) return i + 1;
      }
      ++i;
    }
    return i;
  }
  while (i < s.size() && s[i] != ',' && s[i] != '}' && s[i] != ']' && !is_space(s[i]))
    ++i;
  return i;
}

}  // namespace

std::optional<std::vector<std::string_view>> raw_results(std::string_view body) {
  std::size_t i = skip_space(body, 0);
  if (i >= body.size() || body[i] != '{') return std::nullopt;
  std::optional<std::vector<std::string_view>> found;
  i = skip_space(body, i + 1);
  while (i < body.size() && body[i] == '"') {
    const std::size_t key_end = skip_string(body, i);
    const std::string_view key = body.substr(i, key_end - i);
    i = skip_space(body, key_end);
    if (i >= body.size() || body[i] != ':') return std::nullopt;
    i = skip_space(body, i + 1);
    if (key == "\"results\"") {
      if (i >= body.size() || body[i] != '[') {
        found.reset();  // a later non-array "results" replaces an earlier array
      } else {
        std::vector<std::string_view> items;
        i = skip_space(body, i + 1);
        while (i < body.size() && body[i] != ']') {
          const std::size_t end = skip_value(body, i);
          items.push_back(body.substr(i, end - i));
          i = skip_space(body, end);
          if (i < body.size() && body[i] == ',') i = skip_space(body, i + 1);
        }
        found = std::move(items);
        i = skip_space(body, i + 1);
        if (i < body.size() && body[i] == ',') i = skip_space(body, i + 1);
        continue;
      }
    }
    i = skip_space(body, skip_value(body, i));
    if (i < body.size() && body[i] == ',') i = skip_space(body, i + 1);
  }
  return found;
}

std::string compact_json(std::string_view raw) {
  std::string out;
  out.reserve(raw.size());
  for (std::size_t i = 0; i < raw.size();) {
    if (raw[i] == '"') {
      const std::size_t end = skip_string(raw, i);
      out.append(raw.substr(i, end - i));
      i = end;
    } else {
      if (!is_space(raw[i])) out.push_back(raw[i]);
      ++i;
    }
  }
  return out;
}

}  // namespace entimg::contract::detail
