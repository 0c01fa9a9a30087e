#pragma once
// The pictures behind `image` URLs of generated and recorded records: small, valid, deterministic per
// record, showing the record's id, so a frontend shows a real grid of distinct pictures.
#include <cstdint>
#include <string>
#include <string_view>

namespace entimg::mock::detail {

inline constexpr int kPlaceholderWidth = 192, kPlaceholderHeight = 128;

/// A PNG (8-bit RGB): a background colour drawn from `key`, the id in large digits; its zlib stream written
/// from the picture's runs (placeholder_png.cpp), not searched for.
std::string placeholder_png(std::uint64_t key, std::int64_t id);

/// A baseline JPEG (8-bit greyscale) of the same picture: every 8x8 block is one flat shade, which a
/// DC-only encoding represents exactly.
std::string placeholder_jpeg(std::uint64_t key, std::int64_t id);

/// The same picture as a GIF (two colours; LZW codes kept at 3 bits by a clear code every two pixels).
std::string placeholder_gif(std::uint64_t key, std::int64_t id);
/// The same picture as a BMP (24-bit, uncompressed, rows bottom-up).
std::string placeholder_bmp(std::uint64_t key, std::int64_t id);
/// The same picture as an SVG document (a rectangle of the background and the id as text).
std::string placeholder_svg(std::uint64_t key, std::int64_t id);
/// The same picture as an ICO holding the PNG (as Windows Vista and later icons do).
std::string placeholder_ico(std::uint64_t key, std::int64_t id);

/// The same picture as a TIFF (baseline: RGB, uncompressed, one strip).
std::string placeholder_tiff(std::uint64_t key, std::int64_t id);
/// A lossless WebP of the background alone (one-symbol prefix codes: no pixel costs a bit, no digits).
std::string placeholder_webp(std::uint64_t key, std::int64_t id);

/// The formats a placeholder is made in.
enum class PictureKind { png, jpeg, gif, bmp, svg, ico, tiff, webp };

/// The placeholder a record's mime_type asks for: PNG, JPEG, GIF, BMP, SVG, ICO, TIFF or WebP, labelled with
/// that type; any other type gets the PNG, labelled image/png.
struct Placeholder {
  std::string content_type;
  std::string bytes;
  PictureKind kind = PictureKind::png;
};
Placeholder placeholder_for(std::string_view mime_type, std::uint64_t key, std::int64_t id);

}  // namespace entimg::mock::detail
