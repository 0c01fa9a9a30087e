// picture_structure: whole pictures of every type judged whole, and every one of them cut short anywhere
// (seeded random cuts beside the hand-picked ones) judged cut; garbage after a signature never crashes it.
#include <zlib.h>

#include <cstdint>
#include <functional>
#include <iostream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "entimg/common/prng.hpp"
#include "picture_structure.hpp"

namespace entimg::contract::test {
namespace {

using namespace std::string_literals;
using detail::picture_structure_fault;

std::string be32(std::uint32_t n) {
  return {static_cast<char>(n >> 24), static_cast<char>(n >> 16), static_cast<char>(n >> 8),
          static_cast<char>(n)};
}
std::string le32(std::uint32_t n) {
  return {static_cast<char>(n), static_cast<char>(n >> 8), static_cast<char>(n >> 16),
          static_cast<char>(n >> 24)};
}
std::string le16(std::uint32_t n) {
  return {static_cast<char>(n), static_cast<char>(n >> 8)};
}

std::string png_chunk(const std::string& type, const std::string& data) {
  const std::string body = type + data;
  const auto crc = crc32(0, reinterpret_cast<const Bytef*>(body.data()), static_cast<uInt>(body.size()));
  return be32(static_cast<std::uint32_t>(data.size())) + body + be32(static_cast<std::uint32_t>(crc));
}

// A 4x3 grey PNG, its scanlines deflated by zlib.
std::string png() {
  std::string raw;
  for (int row = 0; row < 3; ++row)
    raw += "\0\x10\x20\x30\x40"s;
  uLongf size = compressBound(static_cast<uLong>(raw.size()));
  std::string packed(size, '\0');
  compress(reinterpret_cast<Bytef*>(packed.data()), &size, reinterpret_cast<const Bytef*>(raw.data()),
           static_cast<uLong>(raw.size()));
  packed.resize(size);
  return "\x89PNG\r\n\x1a\n"s + png_chunk("IHDR", be32(4) + be32(3) + "\x08\x00\x00\x00\x00"s) +
         png_chunk("IDAT", packed) + png_chunk("IEND", "");
}

// A baseline JPEG's segments: APP0, DQT, SOF0, DHT, a scan with a stuffed 0xFF00 and a restart marker, EOI.
std::string jpeg() {
  return "\xFF\xD8"s + "\xFF\xE0\x00\x10JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00"s +
         "\xFF\xDB\x00\x43\x00"s + std::string(64, '\x01') +
         "\xFF\xC0\x00\x0B\x08\x00\x08\x00\x08\x01\x01\x11\x00"s + "\xFF\xC4\x00\x14\x00\x01"s +
         std::string(15, '\0') + "\x05"s + "\xFF\xDA\x00\x08\x01\x01\x00\x00\x3F\x00"s +
         "\x12\x34\xFF\x00\x56\xFF\xD0\x78\x9A"s + "\xFF\xD9"s;
}

// A 1x1 GIF89a with a global colour table, a graphic control extension and one image.
std::string gif() {
  return "GIF89a\x01\x00\x01\x00\x80\x00\x00"s + "\x00\x00\x00\xFF\xFF\xFF"s +
         "\x21\xF9\x04\x00\x00\x00\x00\x00"s + "\x2C\x00\x00\x00\x00\x01\x00\x01\x00\x00"s +
         "\x02\x02\x44\x01\x00"s + "\x3B"s;
}

std::string webp() {
  const std::string chunk = "VP8L"s + le32(5) + "\x2F\x00\x00\x00\x00"s + "\0"s;  // padded to even
  return "RIFF"s + le32(static_cast<std::uint32_t>(4 + chunk.size())) + "WEBP" + chunk;
}

std::string box(const std::string& type, const std::string& data) {
  return be32(static_cast<std::uint32_t>(8 + data.size())) + type + data;
}
std::string avif() {
  return box("ftyp", "avif"s + be32(0) + "avifmif1") + box("meta", std::string(20, '\0')) +
         box("mdat", std::string(40, '\x11'));
}

// A 2x2 BMP, 24-bit, rows padded to 8 bytes.
std::string bmp() {
  const std::string pixels(16, '\x7F');
  const std::uint32_t size = 14 + 40 + 16;
  return "BM"s + le32(size) + le32(0) + le32(54) + le32(40) + le32(2) + le32(2) + le16(1) + le16(24) +
         le32(0) + le32(16) + le32(2835) + le32(2835) + le32(0) + le32(0) + pixels;
}

std::string ico() {
  const std::string image = png();
  return "\0\0\1\0\1\0"s + "\x10\x10\x00\x00\x01\x00\x20\x00"s +
         le32(static_cast<std::uint32_t>(image.size())) + le32(22) + image;
}

// A little-endian TIFF: header, one strip of 12 bytes, then its IFD (width, height, strip offset and count).
std::string tiff() {
  const std::string strip(12, '\x55');
  std::string ifd = le16(4);
  const auto entry = [](std::uint32_t tag, std::uint32_t type, std::uint32_t value) {
    return le16(tag) + le16(type) + le32(1) + le32(value);
  };
  ifd += entry(256, 3, 2) + entry(257, 3, 2) + entry(273, 4, 8) + entry(279, 4, 12) + le32(0);
  return "II*\0"s + le32(8 + 12) + strip + ifd;
}

std::string svg() {
  return "<?xml version=\"1.0\"?>\n<!-- a picture -->\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"4\" "
         "height=\"3\"><rect width=\"4\" height=\"3\" fill=\"#abc\"/><text x=\"0\" y=\"2\">7</text></svg>";
}

struct Sample {
  std::string type;
  std::string bytes;
};
std::vector<Sample> samples() {
  return {{"image/png", png()},   {"image/jpeg", jpeg()},
          {"image/gif", gif()},   {"image/webp", webp()},
          {"image/avif", avif()}, {"image/heic", avif()},
          {"image/bmp", bmp()},   {"image/vnd.microsoft.icon", ico()},
          {"image/tiff", tiff()}, {"image/svg+xml", svg()}};
}

}  // namespace

TEST_CASE("picture_structure: a whole picture of each type is whole", "[checks][pictures]") {
  for (const Sample& s : samples()) {
    INFO(s.type);
    CHECK(picture_structure_fault(s.type, s.bytes).empty());
  }
  CHECK(picture_structure_fault("image/x-portable-pixmap", "P6\n1 1\n255\n").empty());  // no structure judged
}

TEST_CASE("picture_structure: a picture cut short is cut, wherever it is cut", "[checks][pictures]") {
  for (const Sample& s : samples()) {
    INFO(s.type);
    for (const std::size_t keep : {s.bytes.size() - 1, s.bytes.size() / 2, std::size_t{12}}) {
      INFO("kept " << keep << " of " << s.bytes.size() << " bytes");
      CHECK_FALSE(picture_structure_fault(s.type, s.bytes.substr(0, keep)).empty());
    }
  }
  CHECK(picture_structure_fault("image/png", png().substr(0, 50)).find("ends inside chunk IDAT") !=
        std::string::npos);
  CHECK(picture_structure_fault("image/jpeg", jpeg().substr(0, jpeg().size() - 2)).find("before its EOI") !=
        std::string::npos);
  CHECK(picture_structure_fault("image/gif", gif().substr(0, gif().size() - 1)).find("before its trailer") !=
        std::string::npos);
  CHECK(picture_structure_fault("image/svg+xml", "<svg><g></svg>").find("not well-formed XML") !=
        std::string::npos);
  CHECK(picture_structure_fault("image/svg+xml", "<?xml version=\"1.0\"?><html/>")
            .find("root element <html>") != std::string::npos);
}

TEST_CASE("picture_structure: seeded random cuts of each type are all found", "[checks][pictures]") {
  const std::uint64_t seed = 20261206;
  std::cout << "picture_structure random cuts: seed " << seed << "\n";
  common::Pcg32 rng(seed, 1);
  for (const Sample& s : samples())
    for (int i = 0; i < 200; ++i) {
      const std::size_t keep = rng.next_u64() % s.bytes.size();
      INFO(s.type << " cut to " << keep << " of " << s.bytes.size() << " bytes (seed " << seed << ", draw "
                  << i << ")");
      CHECK_FALSE(picture_structure_fault(s.type, s.bytes.substr(0, keep)).empty());
    }
}

TEST_CASE("picture_structure: a PNG with a wrong CRC, and garbage after any signature, never crash",
          "[checks][pictures]") {
  std::string bad = png();
  bad[bad.size() - 20] ^= 1;  // inside IDAT
  CHECK(picture_structure_fault("image/png", bad).find("wrong CRC in chunk IDAT") != std::string::npos);
  const std::uint64_t seed = 7;
  common::Pcg32 rng(seed, 2);
  for (const Sample& s : samples())
    for (int i = 0; i < 100; ++i) {
      std::string garbage = s.bytes.substr(0, std::min<std::size_t>(s.bytes.size(), 8));
      const std::size_t length = rng.next_u64() % 300;
      for (std::size_t k = 0; k < length; ++k)
        garbage.push_back(static_cast<char>(rng.next_u64() & 0xFF));
      INFO(s.type << " garbage draw " << i << " (seed " << seed << ")");
      static_cast<void>(picture_structure_fault(s.type, garbage));  // any verdict; no crash, no hang
    }
}

}  // namespace entimg::contract::test
