#include "placeholder_image.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <string_view>
#include <vector>

#include "deflate.hpp"
#include "entimg/common/prng.hpp"

namespace entimg::mock::detail {
namespace {

constexpr int kBlocksX = kPlaceholderWidth / 8, kBlocksY = kPlaceholderHeight / 8;  // 24 x 16

// 3x5 digits, one bit a cell, rows top to bottom, 3 bits a row (left = 4).
constexpr std::array<std::array<std::uint8_t, 5>, 10> kDigits = {{
    {7, 5, 5, 5, 7},
    {2, 6, 2, 2, 7},
    {7, 1, 7, 4, 7},
    {7, 1, 7, 1, 7},
    {5, 5, 7, 1, 1},
    {7, 4, 7, 1, 7},
    {7, 4, 7, 5, 7},
    {7, 1, 2, 2, 2},
    {7, 5, 7, 5, 7},
    {7, 5, 7, 1, 7},
}};

// The picture as a grid of 8x8 blocks: true where a digit is drawn. The id's last digits (as many as
// fit, up to 6) are centred, each cell of the 3x5 font one block.
std::array<std::array<bool, kBlocksX>, kBlocksY> glyph_grid(std::int64_t id) {
  std::array<std::array<bool, kBlocksX>, kBlocksY> grid{};
  std::string digits = std::to_string(id < 0 ? -id : id);
  if (digits.size() > 6) digits = digits.substr(digits.size() - 6);
  const int width = static_cast<int>(digits.size()) * 4 - 1;
  const int left = (kBlocksX - width) / 2, top = (kBlocksY - 5) / 2;
  for (std::size_t d = 0; d < digits.size(); ++d) {
    const auto& glyph = kDigits[static_cast<std::size_t>(digits[d] - '0')];
    for (int row = 0; row < 5; ++row)
      for (int col = 0; col < 3; ++col)
        if (glyph[static_cast<std::size_t>(row)] & (4 >> col))
          grid[static_cast<std::size_t>(top + row)]
              [static_cast<std::size_t>(left + static_cast<int>(d) * 4 + col)] = true;
  }
  return grid;
}

struct Colour {
  std::uint8_t r, g, b;
};

// A mid-dark background from the key; digits are white.
Colour background(std::uint64_t key) {
  common::Pcg32 rng(common::mix64(key), 0x696d67ULL);
  return {static_cast<std::uint8_t>(40 + rng.below(120)), static_cast<std::uint8_t>(40 + rng.below(120)),
          static_cast<std::uint8_t>(40 + rng.below(120))};
}

void put_u32(std::string& out, std::uint32_t v) {
  out.push_back(static_cast<char>(v >> 24));
  out.push_back(static_cast<char>(v >> 16));
  out.push_back(static_cast<char>(v >> 8));
  out.push_back(static_cast<char>(v));
}

void png_chunk(std::string& out, std::string_view type, const std::string& data) {
  put_u32(out, static_cast<std::uint32_t>(data.size()));
  const std::string body = std::string(type) + data;
  out += body;
  put_u32(out, crc32_of(body));
}

// Bits into bytes, 0xFF followed by a stuffed 0x00 as JPEG's entropy-coded data requires.
class BitWriter {
 public:
  explicit BitWriter(std::string& out) : out_(out) {}
  void put(std::uint32_t bits, int count) {
    for (int i = count - 1; i >= 0; --i) {
      byte_ = static_cast<std::uint8_t>((static_cast<std::uint32_t>(byte_) << 1U) | ((bits >> i) & 1U));
      if (++filled_ == 8) flush_byte();
    }
  }
  void finish() {  // pads with 1 bits
    while (filled_ != 0)
      put(1, 1);
  }

 private:
  void flush_byte() {
    out_.push_back(static_cast<char>(byte_));
    if (byte_ == 0xFF) out_.push_back('\0');
    byte_ = 0;
    filled_ = 0;
  }
  std::string& out_;
  std::uint8_t byte_ = 0;
  int filled_ = 0;
};

void put_u16(std::string& out, int v) {
  out.push_back(static_cast<char>((v >> 8) & 0xFF));
  out.push_back(static_cast<char>(v & 0xFF));
}

void jpeg_segment(std::string& out, std::uint8_t marker, const std::string& data) {
  out.push_back(static_cast<char>(0xFF));
  out.push_back(static_cast<char>(marker));
  put_u16(out, static_cast<int>(data.size()) + 2);
  out += data;
}

// JPEG Annex K.3's luminance DC table: code lengths per category 0..11.
constexpr std::array<std::uint8_t, 16> kDcBits = {0, 1, 5, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0};

}  // namespace

std::string placeholder_png(std::uint64_t key, std::int64_t id) {
  const auto grid = glyph_grid(id);
  const Colour bg = background(key);
  std::string raw;
  raw.reserve(static_cast<std::size_t>(kPlaceholderHeight) * (1 + kPlaceholderWidth * 3));
  for (int y = 0; y < kPlaceholderHeight; ++y) {
    raw.push_back('\0');  // filter: none
    for (int x = 0; x < kPlaceholderWidth; ++x) {
      const bool ink = grid[static_cast<std::size_t>(y / 8)][static_cast<std::size_t>(x / 8)];
      raw.push_back(static_cast<char>(ink ? 255 : bg.r));
      raw.push_back(static_cast<char>(ink ? 255 : bg.g));
      raw.push_back(static_cast<char>(ink ? 255 : bg.b));
    }
  }
  const std::string packed = zlib_compress(raw, 9);

  std::string png = "\x89PNG\r\n\x1a\n";
  std::string header;
  put_u32(header, kPlaceholderWidth);
  put_u32(header, kPlaceholderHeight);
  header += std::string("\x08\x02\x00\x00\x00", 5);  // 8 bits, RGB, deflate, no filter choice, no interlace
  png_chunk(png, "IHDR", header);
  png_chunk(png, "IDAT", packed);
  png_chunk(png, "IEND", "");
  return png;
}

namespace {

// The JPEG's header: SOI, JFIF, the quantisation table, the frame, the Huffman tables and the scan header.
void jpeg_header(std::string& out) {
  out += "\xFF\xD8";  // SOI
  jpeg_segment(out, 0xE0, std::string("JFIF\0\x01\x01\x00\x00\x01\x00\x01\x00\x00", 14));
  // One quantisation table of 8s: a flat block's DC coefficient is 8 * (shade - 128), so it quantises to
  // shade - 128 exactly and decodes back to the same shade.
  jpeg_segment(out, 0xDB, std::string(1, '\0') + std::string(64, '\x08'));
  std::string frame = "\x08";
  put_u16(frame, kPlaceholderHeight);
  put_u16(frame, kPlaceholderWidth);
  frame += std::string("\x01\x01\x11\x00", 4);  // one component: id 1, no subsampling, table 0
  jpeg_segment(out, 0xC0, frame);
  std::string dc(1, '\x00');  // class 0 (DC), table 0
  for (const auto b : kDcBits)
    dc.push_back(static_cast<char>(b));
  for (char v = 0; v < 12; ++v)
    dc.push_back(v);
  jpeg_segment(out, 0xC4, dc);
  // An AC table holding only end-of-block, a 1-bit code: every block has no AC coefficient.
  std::string ac(1, '\x10');
  ac += std::string("\x01", 1) + std::string(15, '\0') + std::string(1, '\0');
  jpeg_segment(out, 0xC4, ac);
  jpeg_segment(out, 0xDA, std::string("\x01\x01\x00\x00\x3F\x00", 6));
}

// The canonical Huffman codes of the DC table, and their lengths, by category.
struct DcCodes {
  std::array<std::uint32_t, 12> code{};
  std::array<int, 12> length{};
};

DcCodes dc_codes() {
  DcCodes dc;
  std::uint32_t next = 0;
  std::size_t symbol = 0;
  for (int bits = 1; bits <= 16; ++bits) {
    for (int k = 0; k < kDcBits[static_cast<std::size_t>(bits - 1)]; ++k, ++symbol) {
      dc.code[symbol] = next++;
      dc.length[symbol] = bits;
    }
    next <<= 1;
  }
  return dc;
}

}  // namespace

std::string placeholder_jpeg(std::uint64_t key, std::int64_t id) {
  const auto grid = glyph_grid(id);
  const Colour bg = background(key);
  const int shade = (bg.r * 299 + bg.g * 587 + bg.b * 114) / 1000;

  std::string out;
  jpeg_header(out);
  const DcCodes dc = dc_codes();
  BitWriter bits(out);
  int previous = 0;
  for (int by = 0; by < kBlocksY; ++by) {
    for (int bx = 0; bx < kBlocksX; ++bx) {
      const int value =
          (grid[static_cast<std::size_t>(by)][static_cast<std::size_t>(bx)] ? 255 : shade) - 128;
      const int diff = value - previous;
      previous = value;
      int magnitude = diff < 0 ? -diff : diff, category = 0;
      while (magnitude > 0) {
        ++category;
        magnitude >>= 1;
      }
      bits.put(dc.code[static_cast<std::size_t>(category)], dc.length[static_cast<std::size_t>(category)]);
      if (category > 0) {
        const int extra = diff < 0 ? diff + (1 << category) - 1 : diff;
        bits.put(static_cast<std::uint32_t>(extra), category);
      }
      bits.put(0, 1);  // end of block
    }
  }
  bits.finish();
  out += "\xFF\xD9";  // EOI
  return out;
}

namespace {

void put_le16(std::string& out, std::uint32_t v) {
  out.push_back(static_cast<char>(v & 0xFF));
  out.push_back(static_cast<char>((v >> 8) & 0xFF));
}

void put_le32(std::string& out, std::uint32_t v) {
  put_le16(out, v & 0xFFFF);
  put_le16(out, v >> 16);
}

// Codes of `bits` bits, least significant bit first, as GIF packs them.
class BitPacker {
 public:
  void put(std::uint32_t code, int bits) {
    for (int i = 0; i < bits; ++i) {
      if (used_ == 0) bytes_.push_back('\0');
      if ((code >> i) & 1U) bytes_.back() = static_cast<char>(bytes_.back() | (1 << used_));
      used_ = (used_ + 1) % 8;
    }
  }
  const std::string& bytes() const { return bytes_; }

 private:
  std::string bytes_;
  int used_ = 0;
};

}  // namespace

std::string placeholder_gif(std::uint64_t key, std::int64_t id) {
  const auto grid = glyph_grid(id);
  const Colour bg = background(key);
  std::string gif = "GIF89a";
  put_le16(gif, kPlaceholderWidth);
  put_le16(gif, kPlaceholderHeight);
  gif += std::string("\x81\x00\x00", 3);  // a global table of 2^(1+1) colours
  gif += {static_cast<char>(bg.r), static_cast<char>(bg.g), static_cast<char>(bg.b)};
  gif += std::string("\xFF\xFF\xFF\x00\x00\x00\x00\x00\x00", 9);  // white, then two unused
  gif += ',';
  put_le16(gif, 0);
  put_le16(gif, 0);
  put_le16(gif, kPlaceholderWidth);
  put_le16(gif, kPlaceholderHeight);
  gif += std::string("\x00\x02", 2);  // no local table; LZW minimum code size 2: clear 4, end 5
  // A clear code before every two pixels keeps the table below 8 entries, so every code stays 3 bits.
  BitPacker codes;
  int since_clear = 2;
  for (int y = 0; y < kPlaceholderHeight; ++y)
    for (int x = 0; x < kPlaceholderWidth; ++x) {
      if (since_clear == 2) {
        codes.put(4, 3);
        since_clear = 0;
      }
      codes.put(grid[static_cast<std::size_t>(y / 8)][static_cast<std::size_t>(x / 8)] ? 1 : 0, 3);
      ++since_clear;
    }
  codes.put(5, 3);
  const std::string& data = codes.bytes();
  for (std::size_t at = 0; at < data.size(); at += 255) {
    const std::size_t n = std::min<std::size_t>(255, data.size() - at);
    gif.push_back(static_cast<char>(n));
    gif.append(data, at, n);
  }
  gif += std::string("\x00;", 2);
  return gif;
}

std::string placeholder_bmp(std::uint64_t key, std::int64_t id) {
  const auto grid = glyph_grid(id);
  const Colour bg = background(key);
  constexpr std::uint32_t kRow = (kPlaceholderWidth * 3 + 3) / 4 * 4;
  constexpr std::uint32_t kPixels = kRow * kPlaceholderHeight;
  std::string bmp = "BM";
  put_le32(bmp, 54 + kPixels);
  put_le32(bmp, 0);
  put_le32(bmp, 54);  // the pixels' offset: after the 14-byte file header and the 40-byte info header
  put_le32(bmp, 40);
  put_le32(bmp, kPlaceholderWidth);
  put_le32(bmp, kPlaceholderHeight);  // positive: bottom-up
  put_le16(bmp, 1);
  put_le16(bmp, 24);
  put_le32(bmp, 0);  // no compression
  put_le32(bmp, kPixels);
  put_le32(bmp, 2835);  // 72 dpi
  put_le32(bmp, 2835);
  put_le32(bmp, 0);
  put_le32(bmp, 0);
  for (int y = kPlaceholderHeight - 1; y >= 0; --y) {
    for (int x = 0; x < kPlaceholderWidth; ++x) {
      const bool ink = grid[static_cast<std::size_t>(y / 8)][static_cast<std::size_t>(x / 8)];
      bmp += {static_cast<char>(ink ? 255 : bg.b), static_cast<char>(ink ? 255 : bg.g),
              static_cast<char>(ink ? 255 : bg.r)};
    }
    bmp.append(kRow - kPlaceholderWidth * 3, '\0');
  }
  return bmp;
}

std::string placeholder_svg(std::uint64_t key, std::int64_t id) {
  const Colour bg = background(key);
  char fill[8];
  std::snprintf(fill, sizeof fill, "#%02x%02x%02x", bg.r, bg.g, bg.b);
  const std::string w = std::to_string(kPlaceholderWidth), h = std::to_string(kPlaceholderHeight);
  return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" +
         w + "\" height=\"" + h + "\" viewBox=\"0 0 " + w + " " + h + "\"><rect width=\"" + w +
         "\" height=\"" + h + "\" fill=\"" + fill +
         "\"/><text x=\"50%\" y=\"50%\" fill=\"#fff\" font-family=\"monospace\" "
         "font-size=\"40\" text-anchor=\"middle\" dominant-baseline=\"middle\">" +
         std::to_string(id) + "</text></svg>\n";
}

std::string placeholder_ico(std::uint64_t key, std::int64_t id) {
  const std::string png = placeholder_png(key, id);
  std::string ico = std::string("\0\0\1\0\1\0", 6);  // an icon file of one image
  ico += {static_cast<char>(kPlaceholderWidth), static_cast<char>(kPlaceholderHeight), '\0', '\0'};
  put_le16(ico, 1);   // colour planes
  put_le16(ico, 32);  // bits per pixel
  put_le32(ico, static_cast<std::uint32_t>(png.size()));
  put_le32(ico, 22);  // the image follows the 6-byte header and the 16-byte entry
  return ico + png;
}

std::string placeholder_tiff(std::uint64_t key, std::int64_t id) {
  const auto grid = glyph_grid(id);
  const Colour bg = background(key);
  constexpr std::uint32_t kPixels = kPlaceholderWidth * kPlaceholderHeight * 3;
  // Little-endian: the header, the pixels (one strip, RGB), then the values too long for a tag and the IFD.
  std::string tiff("II*\0", 4);
  constexpr std::uint32_t kBits = 8 + kPixels, kResolution = kBits + 6, kIfd = kResolution + 8;
  put_le32(tiff, kIfd);
  for (int y = 0; y < kPlaceholderHeight; ++y)
    for (int x = 0; x < kPlaceholderWidth; ++x) {
      const bool ink = grid[static_cast<std::size_t>(y / 8)][static_cast<std::size_t>(x / 8)];
      tiff += {static_cast<char>(ink ? 255 : bg.r), static_cast<char>(ink ? 255 : bg.g),
               static_cast<char>(ink ? 255 : bg.b)};
    }
  for (int i = 0; i < 3; ++i)
    put_le16(tiff, 8);  // BitsPerSample: 8, 8, 8
  put_le32(tiff, 72);   // 72 dpi, as a rational 72/1
  put_le32(tiff, 1);
  // The entries, in ascending tag order: tag, type (3 SHORT, 4 LONG, 5 RATIONAL), count, value or offset.
  struct Entry {
    std::uint16_t tag, type;
    std::uint32_t count, value;
  };
  const Entry entries[] = {
      {256, 4, 1, kPlaceholderWidth},
      {257, 4, 1, kPlaceholderHeight},
      {258, 3, 3, kBits},
      {259, 3, 1, 1},  // no compression
      {262, 3, 1, 2},  // RGB
      {273, 4, 1, 8},  // the strip's offset
      {277, 3, 1, 3},
      {278, 4, 1, kPlaceholderHeight},
      {279, 4, 1, kPixels},
      {282, 5, 1, kResolution},
      {283, 5, 1, kResolution},
      {296, 3, 1, 2},  // inches
  };
  put_le16(tiff, static_cast<std::uint32_t>(std::size(entries)));
  for (const Entry& e : entries) {
    put_le16(tiff, e.tag);
    put_le16(tiff, e.type);
    put_le32(tiff, e.count);
    put_le32(tiff, e.value);  // a SHORT sits in the low half, little-endian
  }
  put_le32(tiff, 0);  // no next IFD
  return tiff;
}

std::string placeholder_webp(std::uint64_t key, std::int64_t) {
  const Colour bg = background(key);
  // A lossless (VP8L) image of the background alone: every prefix code has one symbol, so a pixel costs no
  // bits (the id is not drawn: a picture of it would need real prefix codes).
  BitPacker bits;
  bits.put(0x2f, 8);  // the VP8L signature
  bits.put(kPlaceholderWidth - 1, 14);
  bits.put(kPlaceholderHeight - 1, 14);
  bits.put(0, 1);  // no alpha in use
  bits.put(0, 3);  // version 0
  bits.put(0, 1);  // no transform
  bits.put(0, 1);  // no colour cache
  bits.put(0, 1);  // no meta prefix codes
  // Five simple prefix codes of one symbol each: green, red, blue, alpha (8-bit symbols), distance.
  for (const std::uint32_t symbol : {std::uint32_t{bg.g}, std::uint32_t{bg.r}, std::uint32_t{bg.b}, 255u}) {
    bits.put(1, 1);  // simple code
    bits.put(0, 1);  // one symbol
    bits.put(1, 1);  // of 8 bits
    bits.put(symbol, 8);
  }
  bits.put(1, 1);
  bits.put(0, 1);
  bits.put(0, 1);  // a 1-bit symbol
  bits.put(0, 1);
  std::string chunk = bits.bytes();
  const auto chunk_size = static_cast<std::uint32_t>(chunk.size());
  if (chunk.size() % 2 == 1) chunk.push_back('\0');  // RIFF chunks are padded to an even size
  std::string webp = "RIFF";
  put_le32(webp, static_cast<std::uint32_t>(4 + 8 + chunk.size()));
  webp += "WEBPVP8L";
  put_le32(webp, chunk_size);
  return webp + chunk;
}

Placeholder placeholder_for(std::string_view mime_type, std::uint64_t key, std::int64_t id) {
  if (mime_type == "image/jpeg") return {"image/jpeg", placeholder_jpeg(key, id)};
  if (mime_type == "image/gif") return {"image/gif", placeholder_gif(key, id)};
  if (mime_type == "image/bmp" || mime_type == "image/x-ms-bmp")
    return {std::string(mime_type), placeholder_bmp(key, id)};
  if (mime_type == "image/svg+xml") return {"image/svg+xml", placeholder_svg(key, id)};
  if (mime_type == "image/vnd.microsoft.icon" || mime_type == "image/x-icon")
    return {std::string(mime_type), placeholder_ico(key, id)};
  if (mime_type == "image/tiff") return {"image/tiff", placeholder_tiff(key, id)};
  if (mime_type == "image/webp") return {"image/webp", placeholder_webp(key, id)};
  // PNG for PNGs, and for types with no placeholder of their own (AVIF, HEIC, ...): labelled as what it is.
  return {"image/png", placeholder_png(key, id)};
}

}  // namespace entimg::mock::detail
