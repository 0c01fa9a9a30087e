#include "entimg/common/url.hpp"

#include "entimg/common/ascii.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>

namespace entimg::common {
namespace {

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

char* write_percent_escape(char* at, unsigned char byte) noexcept {
  static constexpr char kHex[] = "0123456789ABCDEF";
  *at++ = '%';
  *at++ = kHex[byte >> 4];
  *at++ = kHex[byte & 15];
  return at;
}

// Length of the well-formed UTF-8 sequence at s[i], or 0 with `bad` set to the length of the
// maximal subpart that must be replaced by one U+FFFD (Unicode 3.9, "U+FFFD substitution").
std::size_t utf8_sequence(std::string_view s, std::size_t i, std::size_t& bad) {
  const auto b0 = static_cast<unsigned char>(s[i]);
  bad = 1;
  if (b0 < 0x80) return 1;
  std::size_t need = 0;
  unsigned char lo = 0x80, hi = 0xBF;
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    need = 1;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    need = 2;
    if (b0 == 0xE0) lo = 0xA0;
    if (b0 == 0xED) hi = 0x9F;
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    need = 3;
    if (b0 == 0xF0) lo = 0x90;
    if (b0 == 0xF4) hi = 0x8F;
  } else {
    return 0;
  }
  for (std::size_t k = 1; k <= need; ++k) {
    if (i + k >= s.size()) return 0;
    const auto b = static_cast<unsigned char>(s[i + k]);
    const unsigned char l = (k == 1) ? lo : 0x80, h = (k == 1) ? hi : 0xBF;
    if (b < l || b > h) return 0;
    bad = k + 1;
  }
  return need + 1;
}

}  // namespace

std::string percent_decode(std::string_view text, bool plus_as_space) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '%' && i + 2 < text.size()) {
      const int h = hex_value(text[i + 1]), l = hex_value(text[i + 2]);
      if (h >= 0 && l >= 0) {
        out.push_back(static_cast<char>(h * 16 + l));
        i += 2;
        continue;
      }
    }
    out.push_back(plus_as_space && c == '+' ? ' ' : c);
  }
  return out;
}

std::string utf8_cut(std::string text, std::size_t max, std::string_view mark) {
  if (text.size() <= max) return text;
  std::size_t cut = max;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0U) == 0x80U)
    --cut;
  text.resize(cut);
  return text.append(mark);
}

std::string utf8_replace_invalid(std::string_view bytes) {
  // ASCII, what queries and headers mostly are, is valid as it is: looked for eight bytes at a time.
  std::size_t i = 0;
  for (std::uint64_t word = 0; i + 8 <= bytes.size(); i += 8) {
    std::memcpy(&word, bytes.data() + i, 8);
    if ((word & 0x8080808080808080ULL) != 0) break;
  }
  while (i < bytes.size() && static_cast<unsigned char>(bytes[i]) < 0x80)
    ++i;
  if (i == bytes.size()) return std::string(bytes);
  std::string out(bytes.substr(0, i));
  out.reserve(bytes.size());
  while (i < bytes.size()) {
    std::size_t bad = 1;
    const std::size_t n = utf8_sequence(bytes, i, bad);
    if (n > 0) {
      out.append(bytes.substr(i, n));
      i += n;
    } else {
      out.append("\xEF\xBF\xBD");
      i += bad;
    }
  }
  return out;
}

QueryParams parse_query(std::string_view query) {
  QueryParams params;
  std::size_t start = 0;
  while (start <= query.size()) {
    std::size_t end = query.find('&', start);
    if (end == std::string_view::npos) end = query.size();
    const std::string_view piece = query.substr(start, end - start);
    if (!piece.empty()) {
      const std::size_t eq = piece.find('=');
      const std::string_view name = piece.substr(0, eq);
      const std::string_view value = eq == std::string_view::npos ? std::string_view{} : piece.substr(eq + 1);
      params.emplace_back(utf8_replace_invalid(percent_decode(name, true)),
                          utf8_replace_invalid(percent_decode(value, true)));
    }
    start = end + 1;
  }
  return params;
}

const std::string* first_value(const QueryParams& params, std::string_view key) {
  for (const auto& [k, v] : params)
    if (k == key) return &v;
  return nullptr;
}

const std::string* last_value(const QueryParams& params, std::string_view key) {
  const std::string* found = nullptr;
  for (const auto& [k, v] : params)
    if (k == key) found = &v;
  return found;
}

UrlParts split_url(std::string_view url) {
  UrlParts parts;
  const std::size_t colon = url.find("://");
  if (colon == std::string_view::npos || colon == 0) return parts;
  for (const char c : url.substr(0, colon)) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '+' ||
                    c == '-' || c == '.';
    if (!ok) return parts;
    parts.scheme.push_back(ascii_lower(static_cast<char>(c)));
  }
  std::string_view rest = url.substr(colon + 3);
  if (const std::size_t hash = rest.find('#'); hash != std::string_view::npos) rest = rest.substr(0, hash);
  const std::size_t path_at = rest.find_first_of("/?");
  parts.authority = std::string(rest.substr(0, path_at));
  if (parts.authority.empty()) return parts;
  rest = path_at == std::string_view::npos ? std::string_view{} : rest.substr(path_at);
  const std::size_t q = rest.find('?');
  parts.path = std::string(rest.substr(0, q));
  if (parts.path.empty()) parts.path = "/";
  if (q != std::string_view::npos) {
    parts.has_query = true;
    parts.query = std::string(rest.substr(q + 1));
  }
  parts.ok = true;
  return parts;
}

void append_percent_escape(std::string& out, unsigned char byte) {
  char escape[3];
  write_percent_escape(escape, byte);
  out.append(escape, 3);
}

char* write_quote(char* at, std::string_view utf8, const PercentSafe& safe) noexcept {
  for (const char ch : utf8) {
    const auto c = static_cast<unsigned char>(ch);
    if (safe[c])
      *at++ = ch;
    else
      at = write_percent_escape(at, c);
  }
  return at;
}

void append_quote(std::string& out, std::string_view utf8, const PercentSafe& safe) {
  const std::size_t start = out.size();
  out.resize(start + 3 * utf8.size());  // written in place, then cut to what was written
  out.resize(static_cast<std::size_t>(write_quote(out.data() + start, utf8, safe) - out.data()));
}

std::string quote(std::string_view utf8, std::string_view safe) {
  std::string out;
  append_quote(out, utf8, quote_safe(safe));
  return out;
}

void append_quote_plus(std::string& out, std::string_view utf8) {
  static constexpr PercentSafe kSafe = quote_safe("");
  const std::size_t start = out.size();
  out.resize(start + 3 * utf8.size());
  char* at = out.data() + start;
  for (const char ch : utf8) {
    const auto c = static_cast<unsigned char>(ch);
    if (kSafe[c])
      *at++ = ch;
    else if (c == ' ')
      *at++ = '+';
    else
      at = write_percent_escape(at, c);
  }
  out.resize(static_cast<std::size_t>(at - out.data()));
}

void append_request_line_safe(std::string& out, std::string_view url) {
  out.reserve(out.size() + url.size());
  for (const char ch : url) {
    const auto c = static_cast<unsigned char>(ch);
    if (c <= 0x20 || c >= 0x7f)
      append_percent_escape(out, c);
    else
      out.push_back(ch);
  }
}

}  // namespace entimg::common
