#pragma once
// Text that came from a server or a file, made safe to print where a person reads it (a terminal, a CI log,
// Markdown): a control byte could retitle or clear the terminal, move the cursor or fake a line; a bidi
// control (U+202E RIGHT-TO-LEFT OVERRIDE, ...) could show a failure line reordered. Both tools print such
// text through this one function (the suite's console, Markdown, annotations and diff; the mock's dataset
// errors and request log).
#include <string>
#include <string_view>

#include "entimg/common/url.hpp"

namespace entimg::common {

/// The text with invalid UTF-8 replaced (U+FFFD), and every C0 control (newline and tab included), DEL,
/// C1 control (U+0080-U+009F) and bidi control (U+061C, U+200E-U+200F, U+202A-U+202E, U+2066-U+2069) written
/// as an escape a person can read: "\x1b", "\x7f", "\u009b", "\u202e". Everything else as it is.
inline std::string printable(std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  const std::string valid = utf8_replace_invalid(text);
  std::string out;
  out.reserve(valid.size());
  const auto escape_code_point = [&out](unsigned code) {
    out.append({'\\', 'u', kHex[(code >> 12) & 15], kHex[(code >> 8) & 15], kHex[(code >> 4) & 15],
                kHex[code & 15]});
  };
  for (std::size_t i = 0; i < valid.size(); ++i) {
    const auto c = static_cast<unsigned char>(valid[i]);
    const auto next = [&](std::size_t k) {
      return i + k < valid.size() ? static_cast<unsigned char>(valid[i + k]) : 0u;
    };
    if (c < 0x20 || c == 0x7F) {
      out.append({'\\', 'x', kHex[c >> 4], kHex[c & 15]});
    } else if (c == 0xC2 && next(1) >= 0x80 && next(1) <= 0x9F) {  // C1: U+0080-U+009F
      escape_code_point(next(1));
      i += 1;
    } else if (c == 0xD8 && next(1) == 0x9C) {  // U+061C ARABIC LETTER MARK
      escape_code_point(0x061C);
      i += 1;
    } else if (c == 0xE2 && next(1) == 0x80 &&
               (next(2) == 0x8E || next(2) == 0x8F || (next(2) >= 0xAA && next(2) <= 0xAE))) {
      escape_code_point(0x2000 + (next(2) - 0x80));  // U+200E-U+200F, U+202A-U+202E
      i += 2;
    } else if (c == 0xE2 && next(1) == 0x81 && next(2) >= 0xA6 && next(2) <= 0xA9) {
      escape_code_point(0x2040 + (next(2) - 0x80));  // U+2066-U+2069
      i += 2;
    } else {
      out.push_back(valid[i]);
    }
  }
  return out;
}

}  // namespace entimg::common
