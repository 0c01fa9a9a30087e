#pragma once
// What a picture's first bytes are, for image_loads: the signatures of the image types a record's
// mime_type names, and the answers that are no picture whatever they are labelled (an HTML page, JSON).
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace entimg::contract::detail {

/// How many leading bytes image_loads asks for (Range: bytes=0-1023): enough for every signature below,
/// an SVG's XML declaration and comments before its <svg> among them.
inline constexpr std::size_t kPictureHeadBytes = 1024;

/// Whether two media types name the same picture type: equal (any case), or aliases a front server and
/// Python's mimetypes spell differently (image/x-icon and image/vnd.microsoft.icon, image/x-ms-bmp and
/// image/bmp, image/pjpeg and image/jpeg).
bool same_picture_type(std::string_view a, std::string_view b);

/// The media type lower-cased, an alias spelled as Python's mimetypes spells it first (image/x-icon →
/// image/vnd.microsoft.icon, image/x-ms-bmp → image/bmp, image/pjpeg → image/jpeg).
std::string canonical_picture_type(std::string_view type);

/// What the leading bytes are when they cannot be a picture: "an HTML page", "JSON", "an empty body"; ""
/// when they may be one.
std::string not_a_picture(std::string_view head);

/// Whether the leading bytes are a picture of that media type (lower case, no parameters): PNG, JPEG, GIF,
/// WebP, BMP, TIFF, ICO, SVG (or gzip-compressed SVG), AVIF/HEIC/HEIF, JPEG 2000, JPEG XL, the PNM family;
/// nullopt when the type has no signature known here (the bytes are then judged by not_a_picture alone).
std::optional<bool> has_signature_of(std::string_view type, std::string_view head);

/// The type whose signature the bytes carry, for messages ("image/png", "image/jpeg"); "" when none.
std::string_view signature_type(std::string_view head);

}  // namespace entimg::contract::detail
