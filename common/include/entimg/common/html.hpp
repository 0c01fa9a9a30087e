#pragma once
// HTML text escaping, for every page either side writes (the mock's browsable API, the suite's report).
#include <string>
#include <string_view>

namespace entimg::common {

/// Appends text with & < > " ' as entities (Django's escape() spelling): safe in element text and in
/// quoted attribute values.
inline void append_html_escaped(std::string& out, std::string_view text) {
  for (const char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#x27;";
        break;
      default:
        out.push_back(c);
    }
  }
}

/// The text with & < > " ' as entities (append_html_escaped's spelling), as a new string.
inline std::string html_escaped(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  append_html_escaped(out, text);
  return out;
}

}  // namespace entimg::common
