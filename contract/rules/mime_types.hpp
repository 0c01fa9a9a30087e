#pragma once
// The media types django-edw sends for a stored file name: Python's mimetypes.guess_type of the name
// (reference C12, §1.6), as far as image types go. Private to mime_type_matches_extension.
#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace entimg::contract::detail {

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

// An extension's bytes and size as one number, ASCII letters in lower case when `fold`; 0 for "" and for
// more than 7 bytes (no extension of these tables has that many). Two extensions are equal (ignoring case)
// when these are: one comparison instead of a byte loop per table entry (the rule runs on every record). The
// size, in the top byte, tells ".jpg" from ".jpg" and a NUL.
constexpr std::uint64_t packed_extension(std::string_view text, bool fold) {
  if (text.empty() || text.size() > 7) return 0;
  std::uint64_t out = std::uint64_t{text.size()} << 56;
  for (std::size_t i = 0; i < text.size(); ++i) {
    auto c = static_cast<unsigned char>(text[i]);
    if (fold && c >= 'A' && c <= 'Z') c = static_cast<unsigned char>(c - 'A' + 'a');
    out |= std::uint64_t{c} << (8 * i);
  }
  return out;
}

inline constexpr auto kPackedImageExtensions = [] {
  std::array<std::uint64_t, kImageTypes.size()> out{};
  for (std::size_t i = 0; i < kImageTypes.size(); ++i)
    out[i] = packed_extension(kImageTypes[i].extension, true);
  return out;
}();

inline const ImageType* image_type(std::string_view extension) {
  const std::uint64_t key = packed_extension(extension, true);
  if (key == 0) return nullptr;
  for (std::size_t i = 0; i < kImageTypes.size(); ++i)
    if (kPackedImageExtensions[i] == key) return &kImageTypes[i];
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

// posixpath.splitext's extension: from the last dot of the last segment, leading dots ignored. Read from
// the end, as the extension is there: a file's folders are most of its path.
inline std::string_view extension_of(std::string_view path) {
  std::size_t dot = path.size();
  while (dot > 0 && path[dot - 1] != '.' && path[dot - 1] != '/')
    --dot;
  if (dot == 0 || path[dot - 1] == '/') return {};  // no dot in the last segment
  --dot;
  std::size_t before = dot;  // only dots before it, back to the segment's start: ".jpg", "..jpg"
  while (before > 0 && path[before - 1] == '.')
    --before;
  if (before == 0 || path[before - 1] == '/') return {};
  return path.substr(dot);
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
  static constexpr auto kPacked = [](bool fold) {
    std::array<std::uint64_t, kEncodings.size()> packed{};
    for (std::size_t i = 0; i < kEncodings.size(); ++i)
      packed[i] = packed_extension(kEncodings[i], fold);
    return packed;
  };
  static constexpr auto kExact = kPacked(false), kFolded = kPacked(true);
  bool exact_encoding = false, folded_encoding = false;
  if (const std::uint64_t folded = packed_extension(out.extension, true); folded != 0) {
    const std::uint64_t exact = packed_extension(out.extension, false);
    for (std::size_t i = 0; i < kEncodings.size(); ++i) {
      exact_encoding = exact_encoding || exact == kExact[i];
      folded_encoding = folded_encoding || folded == kFolded[i];
    }
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
