#pragma once
// RFC 6901 JSON pointers, for messages that say where in a document something is.
#include <string>
#include <string_view>

namespace entimg::common {

/// A key escaped as one pointer token: "~" becomes "~0" and "/" becomes "~1".
inline std::string json_pointer_token(std::string_view key) {
  std::string out;
  out.reserve(key.size());
  for (const char c : key) {
    if (c == '~') {
      out += "~0";
    } else if (c == '/') {
      out += "~1";
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace entimg::common
