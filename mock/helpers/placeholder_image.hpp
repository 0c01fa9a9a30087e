#pragma once
// The pictures behind `image` URLs of generated and recorded records: small, valid, deterministic per
// record, showing the record's id, so a frontend shows a real grid of distinct pictures.
#include <cstdint>
#include <string>

namespace entimg::mock::detail {

inline constexpr int kPlaceholderWidth = 192, kPlaceholderHeight = 128;

/// A PNG (8-bit RGB): a background colour drawn from `key`, the id in large digits.
std::string placeholder_png(std::uint64_t key, std::int64_t id);

/// A baseline JPEG (8-bit greyscale) of the same picture: every 8x8 block is one flat shade, which a
/// DC-only encoding represents exactly.
std::string placeholder_jpeg(std::uint64_t key, std::int64_t id);

}  // namespace entimg::mock::detail
