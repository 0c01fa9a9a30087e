#include "basic_auth.hpp"

#include <vector>

#include "entimg/common/ascii.hpp"
#include "entimg/common/url.hpp"

namespace entimg::mock::detail {
namespace {

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

// Python's base64.b64decode without validation: characters outside the alphabet are skipped, decoding
// ends at padding that completes a quad, and a quad left incomplete is an error (nullopt).
std::optional<std::string> python_b64decode(std::string_view text) {
  std::string out;
  std::uint32_t bits = 0;
  int quad = 0, pads = 0;
  for (const char c : text) {
    if (c == '=') {
      if (quad >= 2 && quad + ++pads >= 4) return out;
      continue;
    }
    int v = -1;
    if (c >= 'A' && c <= 'Z') v = c - 'A';
    if (c >= 'a' && c <= 'z') v = c - 'a' + 26;
    if (c >= '0' && c <= '9') v = c - '0' + 52;
    if (c == '+') v = 62;
    if (c == '/') v = 63;
    if (v < 0) continue;
    pads = 0;
    bits = (bits << 6) | static_cast<std::uint32_t>(v);
    if (++quad == 2) out.push_back(static_cast<char>((bits >> 4) & 0xFF));
    if (quad == 3) out.push_back(static_cast<char>((bits >> 2) & 0xFF));
    if (quad == 4) {
      out.push_back(static_cast<char>(bits & 0xFF));
      quad = 0;
      bits = 0;
    }
  }
  if (quad != 0) return std::nullopt;
  return out;
}

// Bytes that are not UTF-8 are read as Latin-1, as DRF does; the result as UTF-8 for comparing.
std::string as_text(const std::string& bytes) {
  if (common::utf8_replace_invalid(bytes) == bytes) return bytes;
  std::string out;
  for (const char c : bytes) {
    const auto b = static_cast<unsigned char>(c);
    if (b < 0x80) {
      out.push_back(c);
    } else {
      out.push_back(static_cast<char>(0xC0 | (b >> 6)));
      out.push_back(static_cast<char>(0x80 | (b & 0x3F)));
    }
  }
  return out;
}

}  // namespace

AuthResult basic_authenticate(const std::optional<std::string>& authorization, const User* user) {
  if (!authorization) return {};
  std::vector<std::string_view> words;  // bytes.split(): on runs of ASCII whitespace
  std::string_view rest = *authorization;
  while (!rest.empty()) {
    std::size_t start = 0;
    while (start < rest.size() && is_space(rest[start]))
      ++start;
    std::size_t end = start;
    while (end < rest.size() && !is_space(rest[end]))
      ++end;
    if (end > start) words.push_back(rest.substr(start, end - start));
    rest.remove_prefix(end);
  }
  if (words.empty()) return {};
  // The scheme without case; Bearer, Token, …: not Basic's business, the request stays anonymous.
  if (!common::iequals_ascii(words[0], "basic")) return {};
  if (words.size() == 1) return {false, "Invalid basic header. No credentials provided."};
  if (words.size() > 2) return {false, "Invalid basic header. Credentials string should not contain spaces."};
  const auto decoded = python_b64decode(words[1]);
  if (!decoded) return {false, "Invalid basic header. Credentials not correctly base64 encoded."};
  const std::string text = as_text(*decoded);
  const std::size_t colon = text.find(':');
  const std::string name = text.substr(0, colon);
  const std::string password = colon == std::string::npos ? "" : text.substr(colon + 1);
  if (user == nullptr || name != user->name || password != user->password)
    return {false, "Invalid username/password."};
  return {true, ""};
}

}  // namespace entimg::mock::detail
