#include "multipart.hpp"

#include <algorithm>
#include <cctype>
#include <utility>

#include "entimg/common/ascii.hpp"
#include "entimg/common/url.hpp"

namespace entimg::mock::detail {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

// The ';'-separated pieces of a header value, where ';' inside double quotes does not split.
std::vector<std::string_view> split_params(std::string_view value) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  bool quoted = false;
  for (std::size_t i = 0; i < value.size(); ++i) {
    if (value[i] == '"' && (i == 0 || value[i - 1] != '\\')) quoted = !quoted;
    if (value[i] == ';' && !quoted) {
      out.push_back(value.substr(start, i - start));
      start = i + 1;
    }
  }
  out.push_back(value.substr(start));
  return out;
}

// cgi.valid_boundary: ^[ -~]{0,200}[!-~]$
bool valid_boundary(std::string_view b) {
  if (b.empty() || b.size() > 201) return false;
  if (!std::all_of(b.begin(), b.end(), [](char c) { return c >= ' ' && c <= '~'; })) return false;
  return b.back() != ' ';
}

// Django 3.2's sanitize_file_name: the last '/' or '\' segment; "", "." and ".." are no name. (Its
// html.unescape is left out: names with entities are rare in uploads; docs/mock.md.)
std::optional<std::string> sanitize_file_name(std::string_view name) {
  if (const auto slash = name.find_last_of("/\\"); slash != std::string_view::npos)
    name.remove_prefix(slash + 1);
  if (name.empty() || name == "." || name == "..") return std::nullopt;
  return std::string(name);
}

// Django reads a part's headers from its first 1024 bytes.
constexpr std::size_t kMaxHeaderBytes = 1024;

}  // namespace

std::optional<std::string> header_parameter(std::string_view header, std::string_view name) {
  // Django's parse_header: every parameter in turn, a later one of the same name replacing an earlier;
  // "name*" (RFC 2231, charset''percent-encoded) stands for "name".
  std::optional<std::string> found;
  const auto pieces = split_params(header);
  for (std::size_t i = 1; i < pieces.size(); ++i) {
    const std::string_view piece = trim(pieces[i]);
    const auto eq = piece.find('=');
    if (eq == std::string_view::npos) continue;
    std::string key = common::ascii_lowered(trim(piece.substr(0, eq)));
    bool encoded = false;
    if (key.ends_with('*')) {
      key.pop_back();
      encoded = std::count(piece.begin(), piece.end(), '\'') == 2;
    }
    if (key != name) continue;
    std::string value(trim(piece.substr(eq + 1)));
    if (value.size() >= 2 && value.front() == '"' && value.back() == '"') {
      value = value.substr(1, value.size() - 2);
      // value.replace(b'\\\\', b'\\').replace(b'\\"', b'"'), in that order
      const auto replace_all = [&value](std::string_view from, std::string_view to) {
        std::string out;
        for (std::size_t at = 0; at < value.size();) {
          if (value.compare(at, from.size(), from) == 0) {
            out += to;
            at += from.size();
          } else {
            out += value[at++];
          }
        }
        value = std::move(out);
      };
      replace_all("\\\\", "\\");
      replace_all("\\\"", "\"");
    }
    if (encoded) {
      const std::size_t second = value.find('\'', value.find('\'') + 1);
      value = common::utf8_replace_invalid(
          common::percent_decode(std::string_view(value).substr(second + 1), false));
    }
    found = std::move(value);
  }
  return found;
}

MultipartResult parse_multipart(std::string_view content_type, std::string_view body) {
  MultipartResult result;
  if (!content_type.starts_with("multipart/")) {  // DRF matched the type without case; Django does not
    result.error = "Invalid Content-Type: " + std::string(content_type);
    return result;
  }
  const std::optional<std::string> boundary = header_parameter(content_type, "boundary");
  if (!boundary || !valid_boundary(*boundary)) {
    result.error = "Invalid boundary in multipart: " + boundary.value_or("None");
    return result;
  }
  if (body.empty()) return result;
  const std::string delimiter = "--" + *boundary;
  std::size_t at = body.find(delimiter);
  while (at != std::string_view::npos) {
    std::size_t start = at + delimiter.size();
    if (body.substr(start, 2) == "--") break;  // the closing delimiter
    if (body.substr(start, 2) == "\r\n") start += 2;
    const std::size_t next = body.find("\r\n" + delimiter, start);
    // A part cut short before its closing delimiter: Django keeps a text field's data up to the end, and
    // drops a file (its upload never completes).
    const bool cut = next == std::string_view::npos;
    const std::string_view part = body.substr(start, cut ? body.npos : next - start);
    at = cut ? next : next + 2;

    // Django looks for the end of a part's headers in its first 1024 bytes; without it the part is raw
    // data, skipped.
    const std::size_t header_end = part.find("\r\n\r\n");
    if (header_end == std::string_view::npos || header_end + 4 > kMaxHeaderBytes) continue;
    std::optional<std::string> disposition, type;
    std::string_view headers = part.substr(0, header_end);
    while (!headers.empty()) {
      const std::size_t eol = headers.find("\r\n");
      const std::string_view line = headers.substr(0, eol);
      headers = eol == std::string_view::npos ? std::string_view{} : headers.substr(eol + 2);
      const auto colon = line.find(':');
      if (colon == std::string_view::npos) continue;
      const std::string key = common::ascii_lowered(trim(line.substr(0, colon)));
      if (key == "content-disposition") disposition = std::string(trim(line.substr(colon + 1)));
      if (key == "content-type") type = std::string(trim(line.substr(colon + 1)));
    }
    if (!disposition) continue;
    const std::optional<std::string> name = header_parameter(*disposition, "name");
    if (!name) continue;
    MultipartPart item;
    item.name = common::utf8_replace_invalid(trim(*name));
    const std::string_view data = part.substr(header_end + 4);
    if (const auto filename = header_parameter(*disposition, "filename"); filename && !filename->empty()) {
      item.filename = sanitize_file_name(common::utf8_replace_invalid(*filename));
      if (!item.filename || cut) continue;  // a name that sanitizes to nothing ("..") : Django skips the part
      item.content_type = type.value_or("");
      item.data = std::string(data);
    } else {
      item.data = common::utf8_replace_invalid(data);
    }
    result.parts.push_back(std::move(item));
  }
  return result;
}

}  // namespace entimg::mock::detail
