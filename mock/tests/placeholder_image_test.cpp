// The placeholder pictures' bytes (issue 45: made from the picture's runs, not encoded pixel by pixel): the
// PNG's own zlib stream inflates to the picture drawn pixel by pixel, and every format's bytes are pinned for
// a few records, so that a change to them is a decision (JPEG, GIF, BMP, SVG, TIFF and WebP pinned with the
// bytes the mock made before issue 45, PNG and ICO with the bytes since).
#include <string>
#include <vector>

#include <zlib.h>
#include <catch2/catch.hpp>

#include "picture_bytes.hpp"
#include "picture_canvas.hpp"
#include "placeholder_image.hpp"

using namespace entimg::mock::detail;

namespace {

// The PNG's IDAT data, its chunks' CRCs checked on the way.
std::string png_idat_of(const std::string& png) {
  std::string idat;
  for (std::size_t at = 8; at + 12 <= png.size();) {
    const std::uint32_t length = entimg::mock::testing::be32(png, at);
    REQUIRE(crc32(0, reinterpret_cast<const Bytef*>(png.data() + at + 4), length + 4) ==
            entimg::mock::testing::be32(png, at + 8 + length));
    if (png.compare(at + 4, 4, "IDAT") == 0) idat += png.substr(at + 8, length);
    at += 12 + length;
  }
  return idat;
}

// The rows a PNG decoder must get, pixel by pixel, from the picture's blocks.
std::string png_rows_drawn(std::uint64_t key, std::int64_t id) {
  const Canvas canvas = canvas_of(key, id);
  std::string raw;
  for (int y = 0; y < kPlaceholderHeight; ++y) {
    raw.push_back('\0');
    for (int x = 0; x < kPlaceholderWidth; ++x) {
      const bool ink = is_ink(canvas.rows[static_cast<std::size_t>(y / kBlockSize)], x / kBlockSize);
      const Colour c = ink ? kInk : canvas.background;
      raw += {static_cast<char>(c.r), static_cast<char>(c.g), static_cast<char>(c.b)};
    }
  }
  return raw;
}

std::uint32_t pin_crc_of(const std::string& bytes) {
  return static_cast<std::uint32_t>(
      crc32(0, reinterpret_cast<const Bytef*>(bytes.data()), static_cast<uInt>(bytes.size())));
}

}  // namespace

TEST_CASE("the placeholder PNG's zlib stream inflates to the picture drawn pixel by pixel", "[media]") {
  for (const std::int64_t id :
       std::vector<std::int64_t>{0, 1, 7, 42, 1000, 123456, 888888, 9999999, 1234567890123, -77}) {
    INFO("id " << id);
    const std::string png = placeholder_png(static_cast<std::uint64_t>(id), id);
    const std::string idat = png_idat_of(png);
    const std::string expected = png_rows_drawn(static_cast<std::uint64_t>(id), id);
    uLongf size = static_cast<uLongf>(expected.size());
    std::string raw(expected.size() + 16, '\0');
    // uncompress checks the stream's Adler-32 too
    REQUIRE(uncompress(reinterpret_cast<Bytef*>(raw.data()), &size,
                       reinterpret_cast<const Bytef*>(idat.data()), static_cast<uLong>(idat.size())) == Z_OK);
    raw.resize(size);
    CHECK(raw == expected);
    CHECK(png.size() < 1400);  // fixed codes: 1.0 to 1.3 KB, where zlib's level 9 found about 400 bytes
  }
}

TEST_CASE("every placeholder format's bytes are pinned", "[media]") {
  struct Pin {
    const char* mime_type;
    std::int64_t id;
    std::size_t size;
    std::uint32_t crc;
  };
  // (size, CRC-32) of placeholder_for(type, id, id); see the file's comment for where each pin comes from.
  const std::vector<Pin> pins = {
      {"image/png", 301, 1029, 0x6A084D72},
      {"image/png", 302, 1026, 0xC39A2550},
      {"image/jpeg", 311, 359, 0x4CE16280},
      {"image/jpeg", 312, 359, 0x749C7D57},
      {"image/gif", 321, 13918, 0xFA3C3ED5},
      {"image/gif", 322, 13918, 0xDB9B0697},
      {"image/bmp", 331, 73782, 0x88E45DE3},
      {"image/bmp", 332, 73782, 0x41DF34CF},
      {"image/vnd.microsoft.icon", 341, 1041, 0x8EC4425C},
      {"image/vnd.microsoft.icon", 342, 1041, 0xF5674C0D},
      {"image/tiff", 351, 73900, 0x71255DCE},
      {"image/tiff", 352, 73900, 0xD3B96AD8},
      {"image/webp", 361, 32, 0x0847F0F8},
      {"image/webp", 362, 32, 0x4BE2C744},
      {"image/svg+xml", 371, 311, 0xA33AFC2A},
      {"image/svg+xml", 372, 311, 0x8CC0048B},
      {"image/avif", 381, 1016, 0x327D6DC0},
      {"image/avif", 382, 1022, 0x7C92907F},
  };
  for (const Pin& pin : pins) {
    INFO(pin.mime_type << " id " << pin.id);
    const Placeholder p = placeholder_for(pin.mime_type, static_cast<std::uint64_t>(pin.id), pin.id);
    CHECK(p.bytes.size() == pin.size);
    CHECK(pin_crc_of(p.bytes) == pin.crc);
  }
}
