#include "picture_types.hpp"

#include <array>

#include "entimg/common/ascii.hpp"

namespace entimg::contract::detail {
namespace {

using namespace std::string_view_literals;

bool at(std::string_view head, std::size_t offset, std::string_view bytes) {
  return head.size() >= offset + bytes.size() && head.substr(offset, bytes.size()) == bytes;
}

bool png(std::string_view h) {
  return at(h, 0, "\x89PNG\r\n\x1a\n"sv);
}
bool jpeg(std::string_view h) {
  return at(h, 0, "\xFF\xD8\xFF"sv);
}
bool gif(std::string_view h) {
  return at(h, 0, "GIF87a"sv) || at(h, 0, "GIF89a"sv);
}
bool webp(std::string_view h) {
  return at(h, 0, "RIFF"sv) && at(h, 8, "WEBP"sv);
}
bool bmp(std::string_view h) {
  return at(h, 0, "BM"sv);
}
bool tiff(std::string_view h) {
  return at(h, 0, "II*\0"sv) || at(h, 0, "MM\0*"sv);
}
bool ico(std::string_view h) {
  return at(h, 0, "\0\0\1\0"sv);
}
// ISO base media files (AVIF, HEIC, HEIF): a box whose type is ftyp.
bool iso_media(std::string_view h) {
  return at(h, 4, "ftyp"sv);
}
bool jp2(std::string_view h) {
  return at(h, 0, "\0\0\0\x0CjP  "sv);
}
bool jxl(std::string_view h) {
  return at(h, 0, "\xFF\x0A"sv) || at(h, 0, "\0\0\0\x0CJXL "sv);
}
bool pnm(std::string_view h) {
  return h.size() >= 2 && h[0] == 'P' && h[1] >= '1' && h[1] <= '7';
}

// The text after a byte-order mark and white space, lower-cased, as far as it was read.
std::string text_start(std::string_view head) {
  if (head.starts_with("\xEF\xBB\xBF"sv)) head.remove_prefix(3);
  return common::ascii_lowered(common::trim(head, " \t\r\n"));
}

bool is_html(const std::string& text) {
  return text.starts_with("<!doctype html") || text.starts_with("<html") || text.starts_with("<head") ||
         text.starts_with("<body") || (text.starts_with("<!--") && text.find("<html") != std::string::npos);
}

// An SVG document: XML whose root element, after a declaration, comments or a doctype, is <svg; or one
// compressed with gzip (.svgz).
bool svg(std::string_view h) {
  if (at(h, 0, "\x1F\x8B"sv)) return true;
  const std::string text = text_start(h);
  if (!text.starts_with('<') || is_html(text)) return false;
  return text.find("<svg") != std::string::npos;
}

struct Signature {
  std::string_view type;
  bool (*matches)(std::string_view head);
};
constexpr std::array<Signature, 21> kSignatures = {{
    {"image/png", png},
    {"image/apng", png},
    {"image/jpeg", jpeg},
    {"image/gif", gif},
    {"image/webp", webp},
    {"image/bmp", bmp},
    {"image/tiff", tiff},
    {"image/vnd.microsoft.icon", ico},
    {"image/svg+xml", svg},
    {"image/avif", iso_media},
    {"image/heic", iso_media},
    {"image/heif", iso_media},
    {"image/jp2", jp2},
    {"image/jxl", jxl},
    {"image/x-portable-anymap", pnm},
    {"image/x-portable-bitmap", pnm},
    {"image/x-portable-graymap", pnm},
    {"image/x-portable-pixmap", pnm},
    {"image/x-ms-bmp", bmp},
    {"image/x-icon", ico},
    {"image/pjpeg", jpeg},
}};

// Aliases: the spelling Python's mimetypes gives first.
std::string canonical(std::string_view type) {
  std::string lower = common::ascii_lowered(type);
  if (lower == "image/x-ms-bmp" || lower == "image/x-bmp") return "image/bmp";
  if (lower == "image/x-icon") return "image/vnd.microsoft.icon";
  if (lower == "image/pjpeg") return "image/jpeg";
  return lower;
}

}  // namespace

std::string canonical_picture_type(std::string_view type) {
  return canonical(type);
}

bool same_picture_type(std::string_view a, std::string_view b) {
  return canonical(a) == canonical(b);
}

std::string not_a_picture(std::string_view head) {
  if (head.empty()) return "an empty body";
  const std::string text = text_start(head);
  if (is_html(text)) return "an HTML page";
  if (text.starts_with('{') || text.starts_with('[')) return "JSON";
  return "";
}

std::optional<bool> has_signature_of(std::string_view type, std::string_view head) {
  for (const Signature& s : kSignatures)
    if (s.type == type) return s.matches(head);
  return std::nullopt;
}

std::string_view signature_type(std::string_view head) {
  // SVG last: its test is the loosest (text with <svg in it). The table lists each type's first spelling
  // before its aliases, so the first match names it as Python's mimetypes does.
  for (const Signature& s : kSignatures)
    if (s.type != "image/svg+xml" && s.matches(head)) return s.type;
  return svg(head) ? "image/svg+xml" : "";
}

}  // namespace entimg::contract::detail
