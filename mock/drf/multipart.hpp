#pragma once
// multipart/form-data as Django's MultiPartParser reads it for DRF's MultiPartParser (reference §3.6):
// the boundary from the Content-Type (refused as Django refuses it), then parts, each a field (text) or a
// file (a part with a non-empty filename, reduced to its base name as Django sanitizes it; an empty
// filename makes a text field). Parts without a name, before the first boundary, with over 1024 bytes of
// headers, or files cut short before their closing delimiter are skipped, as Django skips them.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace entimg::mock::detail {

struct MultipartPart {
  std::string name;
  std::optional<std::string> filename;  ///< set for files: the sanitized base name
  std::string content_type;             ///< the part's own Content-Type, for files
  std::string data;                     ///< the bytes (fields: UTF-8, invalid sequences replaced)
};

struct MultipartResult {
  std::vector<MultipartPart> parts;
  std::string error;  ///< Django's MultiPartParserError text, e.g. "Invalid boundary in multipart: None"
};

/// Splits `body` sent with `content_type` ("multipart/form-data; boundary=...").
MultipartResult parse_multipart(std::string_view content_type, std::string_view body);

/// Django's parse_header for a Content-Type or Content-Disposition value: the main value lower-cased
/// and its parameters (names lower-cased, quoted values unquoted); nullopt for a parameter not present.
std::optional<std::string> header_parameter(std::string_view header, std::string_view name);

}  // namespace entimg::mock::detail
