#pragma once
// The media types django-edw sends for a stored file name: Python's mimetypes.guess_type of the name
// (reference C12, §1.6), as far as image types go. Private to mime_type_matches_extension.
#include <array>
#include <string_view>

#include "entimg/common/ascii.hpp"

namespace entimg::contract::detail {

using common::iequals_ascii;

// Image types of Python's mimetypes (types_map, strict) plus the ones hosts commonly add through
// /etc/mime.types. `maybe_unknown`: the mapping depends on the Python version or on the host's
// mime.types, so "" is also right.
struct ImageType {
  std::string_view extension;  // lower case, with the dot
  std::string_view type;
  std::string_view other_type;  // what some hosts' mime.types give instead
  bool maybe_unknown;
};
inline constexpr std::array<ImageType, 27> kImageTypes = {{
    {".jpg", "image/jpeg", "", false},
    {".jpeg", "image/jpeg", "", false},
    {".jpe", "image/jpeg", "", false},
    {".png", "image/png", "", false},
    {".gif", "image/gif", "", false},
    {".bmp", "image/bmp", "image/x-ms-bmp", false},
    {".ief", "image/ief", "", false},
    {".svg", "image/svg+xml", "", false},
    {".svgz", "image/svg+xml", "", true},
    {".tif", "image/tiff", "", false},
    {".tiff", "image/tiff", "", false},
    {".ico", "image/vnd.microsoft.icon", "image/x-icon", false},
    {".ras", "image/x-cmu-raster", "", false},
    {".pnm", "image/x-portable-anymap", "", false},
    {".pbm", "image/x-portable-bitmap", "", false},
    {".pgm", "image/x-portable-graymap", "", false},
    {".ppm", "image/x-portable-pixmap", "", false},
    {".rgb", "image/x-rgb", "", false},
    {".xbm", "image/x-xbitmap", "", false},
    {".xpm", "image/x-xpixmap", "", false},
    {".xwd", "image/x-xwindowdump", "", false},
    {".webp", "image/webp", "", true},
    {".heic", "image/heic", "", true},
    {".heif", "image/heif", "", true},
    {".avif", "image/avif", "", true},
    {".jp2", "image/jp2", "", true},
    {".jxl", "image/jxl", "", true},
}};

inline const ImageType* image_type(std::string_view extension) {
  for (const ImageType& t : kImageTypes)
    if (iequals_ascii(t.extension, extension)) return &t;
  return nullptr;
}

// The table entry whose type is `type`, or nullptr.
inline const ImageType* image_table_type(std::string_view type) {
  for (const ImageType& t : kImageTypes)
    if (t.type == type || (!t.other_type.empty() && t.other_type == type)) return &t;
  return nullptr;
}
inline bool is_image_table_type(std::string_view type) {
  return image_table_type(type) != nullptr;
}

// posixpath.splitext's extension: from the last dot of the last segment, leading dots ignored.
inline std::string_view extension_of(std::string_view path) {
  const std::size_t slash = path.rfind('/');
  std::string_view base = slash == std::string_view::npos ? path : path.substr(slash + 1);
  const std::size_t dot = base.rfind('.');
  if (dot == std::string_view::npos) return {};
  if (base.find_first_not_of('.') >= dot) return {};  // only dots before it: ".jpg", "..jpg"
  return base.substr(dot);
}

// The mime types edw may send for a stored name, as mimetypes.guess_type does: a compression
// suffix (.gz, .bz2, …) is an encoding and the type is the inner extension's.
struct ExpectedMime {
  const ImageType* image = nullptr;  // the image type, when the (inner) extension is one
  bool empty_ok = true;
  bool any_other_ok = false;  // the host's mime.types may type the extension: any non-image type goes
  std::string_view extension;
};
inline ExpectedMime expected_mime(std::string_view file) {
  ExpectedMime out;
  out.extension = extension_of(file);
  static constexpr std::array<std::string_view, 5> kEncodings = {".gz", ".Z", ".bz2", ".xz", ".br"};
  bool exact_encoding = false, folded_encoding = false;
  for (const std::string_view e : kEncodings) {
    exact_encoding = exact_encoding || out.extension == e;
    folded_encoding = folded_encoding || iequals_ascii(out.extension, e);
  }
  if (folded_encoding) {  // one encoding suffix is stripped, as Python does, and only one
    out.extension = extension_of(file.substr(0, file.size() - out.extension.size()));
    out.image = image_type(out.extension);
    out.empty_ok = out.image == nullptr || out.image->maybe_unknown || !exact_encoding;
    // Python matches encodings case-sensitively, so ".GZ" is an extension of its own that the
    // host's mime.types may type (application/gzip); later versions may fold the case.
    out.any_other_ok = !exact_encoding;
    return out;
  }
  out.image = image_type(out.extension);
  out.empty_ok = out.image == nullptr || out.image->maybe_unknown;
  return out;
}

}  // namespace entimg::contract::detail
