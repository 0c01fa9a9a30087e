#include "placeholder_image.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstring>
#include <string_view>

#include "entimg/common/prng.hpp"
#include "picture_canvas.hpp"

namespace entimg::mock::detail {
namespace {

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

// A mid-dark background from the key; digits are white.
Colour background(std::uint64_t key) {
  common::Pcg32 rng(common::mix64(key), 0x696d67ULL);
  return {static_cast<std::uint8_t>(40 + rng.below(120)), static_cast<std::uint8_t>(40 + rng.below(120)),
          static_cast<std::uint8_t>(40 + rng.below(120))};
}

void put_le16(std::string& out, std::uint32_t v) {
  out.push_back(static_cast<char>(v & 0xFF));
  out.push_back(static_cast<char>((v >> 8) & 0xFF));
}

void put_le32(std::string& out, std::uint32_t v) {
  put_le16(out, v & 0xFFFF);
  put_le16(out, v >> 16);
}

void put_u16(std::string& out, int v) {
  out.push_back(static_cast<char>((v >> 8) & 0xFF));
  out.push_back(static_cast<char>(v & 0xFF));
}

// One row of pixels of a block row, three bytes a pixel in the order `order` names (0 red, 1 green, 2 blue),
// then `padding` zero bytes: what BMP and TIFF store for each row. Each run is its first pixel, doubled.
std::string pixel_row(std::uint32_t row, Colour background, std::array<int, 3> order, std::size_t padding) {
  std::string out(kPlaceholderWidth * 3 + padding, '\0');
  each_run(row, [&](int first, int blocks, bool ink) {
    const Colour c = ink ? kInk : background;
    const std::uint8_t rgb[3] = {c.r, c.g, c.b};
    char* at = out.data() + static_cast<std::size_t>(first) * kBlockSize * 3;
    for (std::size_t i = 0; i < 3; ++i)
      at[i] = static_cast<char>(rgb[order[i]]);
    const std::size_t bytes = static_cast<std::size_t>(blocks) * kBlockSize * 3;
    for (std::size_t done = 3; done < bytes; done *= 2)
      std::memcpy(at + done, at, std::min(done, bytes - done));
  });
  return out;
}

// Appends the picture's rows of pixels (pixel_row), top to bottom or bottom up, each block row made once.
void append_rows(std::string& out, const Canvas& canvas, std::array<int, 3> order, std::size_t padding,
                 bool bottom_up) {
  std::array<std::string, kBlocksY> rows;
  for (std::size_t band = 0; band < kBlocksY; ++band)
    rows[band] = pixel_row(canvas.rows[band], canvas.background, order, padding);
  for (int i = 0; i < kPlaceholderHeight; ++i) {
    const int y = bottom_up ? kPlaceholderHeight - 1 - i : i;
    out += rows[static_cast<std::size_t>(y / kBlockSize)];
  }
}

}  // namespace

Canvas canvas_of(std::uint64_t key, std::int64_t id) {
  Canvas canvas{background(key), {}};
  std::string digits = std::to_string(id < 0 ? -id : id);
  if (digits.size() > 6) digits = digits.substr(digits.size() - 6);
  const int width = static_cast<int>(digits.size()) * 4 - 1;
  const int left = (kBlocksX - width) / 2, top = (kBlocksY - 5) / 2;
  for (std::size_t d = 0; d < digits.size(); ++d) {
    const auto& glyph = kDigits[static_cast<std::size_t>(digits[d] - '0')];
    for (int row = 0; row < 5; ++row)
      for (int col = 0; col < 3; ++col)
        if (glyph[static_cast<std::size_t>(row)] & (4 >> col))
          canvas.rows[static_cast<std::size_t>(top + row)] |= 1U << (left + static_cast<int>(d) * 4 + col);
  }
  return canvas;
}

namespace {

// Bits into bytes, most significant first, 0xFF followed by a stuffed 0x00 as JPEG's entropy-coded data
// requires; up to 24 bits a call.
class BitWriter {
 public:
  explicit BitWriter(std::string& out) : out_(out) {}
  void put(std::uint32_t bits, int count) {
    pending_ = (pending_ << count) | (bits & ((1U << count) - 1U));
    filled_ += count;
    while (filled_ >= 8) {
      filled_ -= 8;
      const auto byte = static_cast<char>((pending_ >> filled_) & 0xFFU);
      out_.push_back(byte);
      if (byte == '\xFF') out_.push_back('\0');
    }
    pending_ &= (std::uint64_t{1} << filled_) - 1U;
  }
  void finish() {  // pads with 1 bits
    if (filled_ > 0) put((1U << (8 - filled_)) - 1U, 8 - filled_);
  }

 private:
  std::string& out_;
  std::uint64_t pending_ = 0;
  int filled_ = 0;
};

void jpeg_segment(std::string& out, std::uint8_t marker, const std::string& data) {
  out.push_back(static_cast<char>(0xFF));
  out.push_back(static_cast<char>(marker));
  put_u16(out, static_cast<int>(data.size()) + 2);
  out += data;
}

// JPEG Annex K.3's luminance DC table: code lengths per category 0..11.
constexpr std::array<std::uint8_t, 16> kDcBits = {0, 1, 5, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0};

// The JPEG's header: SOI, JFIF, the quantisation table, the frame, the Huffman tables and the scan header.
std::string jpeg_header() {
  std::string out = "\xFF\xD8";  // SOI
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
  return out;
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
  static const std::string kHeader = jpeg_header();
  static const DcCodes kDc = dc_codes();
  const Canvas canvas = canvas_of(key, id);
  const Colour bg = canvas.background;
  const int shade = (bg.r * 299 + bg.g * 587 + bg.b * 114) / 1000;

  std::string out;
  out.reserve(kHeader.size() + 512);
  out += kHeader;
  BitWriter bits(out);
  int previous = 0;
  for (int by = 0; by < kBlocksY; ++by) {
    for (int bx = 0; bx < kBlocksX; ++bx) {
      const int value = (is_ink(canvas.rows[static_cast<std::size_t>(by)], bx) ? 255 : shade) - 128;
      const int diff = value - previous;
      previous = value;
      int magnitude = diff < 0 ? -diff : diff, category = 0;
      while (magnitude > 0) {
        ++category;
        magnitude >>= 1;
      }
      const auto c = static_cast<std::size_t>(category);
      // The category's code, its extra bits, then end of block (a 0 bit): one put.
      const std::uint32_t extra =
          category == 0 ? 0 : static_cast<std::uint32_t>(diff < 0 ? diff + (1 << category) - 1 : diff);
      bits.put((((kDc.code[c] << category) | extra) << 1), kDc.length[c] + category + 1);
    }
  }
  bits.finish();
  out += "\xFF\xD9";  // EOI
  return out;
}

namespace {

// Codes of `bits` bits, least significant bit first, as GIF and VP8L pack them.
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

// The GIF's LZW codes keep to 3 bits by a clear code (4) before every two pixels, so 16 pixels (two blocks)
// are eight (clear, pixel, pixel) triples: 72 bits, nine bytes, and every row of 192 pixels starts on a byte.
// The nine bytes of each pair of blocks (left ink, right ink) are made once.
using GifGroup = std::array<char, 9>;
const std::array<GifGroup, 4>& gif_groups() {
  static const std::array<GifGroup, 4> groups = [] {
    std::array<GifGroup, 4> out{};
    for (std::uint32_t inks = 0; inks < 4; ++inks) {
      BitPacker codes;
      for (int pixel = 0; pixel < 2 * kBlockSize; ++pixel) {
        if (pixel % 2 == 0) codes.put(4, 3);
        codes.put(pixel < kBlockSize ? inks >> 1 : inks & 1U, 3);
      }
      std::memcpy(out[inks].data(), codes.bytes().data(), 9);
    }
    return out;
  }();
  return groups;
}

}  // namespace

std::string placeholder_gif(std::uint64_t key, std::int64_t id) {
  const Canvas canvas = canvas_of(key, id);
  const Colour bg = canvas.background;
  constexpr std::size_t kRowBytes = kPlaceholderWidth / (2 * kBlockSize) * 9;  // 108
  constexpr std::size_t kDataBytes = kRowBytes * kPlaceholderHeight + 1;       // and the end code
  std::string data(kDataBytes, '\0');
  for (int band = 0; band < kBlocksY; ++band) {
    const std::uint32_t row = canvas.rows[static_cast<std::size_t>(band)];
    char* first = data.data() + static_cast<std::size_t>(band) * kBlockSize * kRowBytes;
    for (int pair = 0; pair < kBlocksX / 2; ++pair) {
      const auto inks = (is_ink(row, 2 * pair) ? 2U : 0U) | (is_ink(row, 2 * pair + 1) ? 1U : 0U);
      std::memcpy(first + static_cast<std::size_t>(pair) * 9, gif_groups()[inks].data(), 9);
    }
    for (int i = 1; i < kBlockSize; ++i)
      std::memcpy(first + static_cast<std::size_t>(i) * kRowBytes, first, kRowBytes);
  }
  data.back() = '\x05';  // the end code (5), on a byte of its own

  std::string gif = "GIF89a";
  gif.reserve(64 + kDataBytes + kDataBytes / 255 + 2);
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
  for (std::size_t at = 0; at < data.size(); at += 255) {
    const std::size_t n = std::min<std::size_t>(255, data.size() - at);
    gif.push_back(static_cast<char>(n));
    gif.append(data, at, n);
  }
  gif += std::string("\x00;", 2);
  return gif;
}

std::string placeholder_bmp(std::uint64_t key, std::int64_t id) {
  const Canvas canvas = canvas_of(key, id);
  constexpr std::uint32_t kRow = (kPlaceholderWidth * 3 + 3) / 4 * 4;
  constexpr std::uint32_t kPixels = kRow * kPlaceholderHeight;
  std::string bmp = "BM";
  bmp.reserve(54 + kPixels);
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
  append_rows(bmp, canvas, {2, 1, 0}, kRow - kPlaceholderWidth * 3, true);  // BGR
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
  ico.reserve(22 + png.size());
  ico += {static_cast<char>(kPlaceholderWidth), static_cast<char>(kPlaceholderHeight), '\0', '\0'};
  put_le16(ico, 1);   // colour planes
  put_le16(ico, 32);  // bits per pixel
  put_le32(ico, static_cast<std::uint32_t>(png.size()));
  put_le32(ico, 22);  // the image follows the 6-byte header and the 16-byte entry
  return ico += png;
}

std::string placeholder_tiff(std::uint64_t key, std::int64_t id) {
  const Canvas canvas = canvas_of(key, id);
  constexpr std::uint32_t kPixels = kPlaceholderWidth * kPlaceholderHeight * 3;
  // Little-endian: the header, the pixels (one strip, RGB), then the values too long for a tag and the IFD.
  std::string tiff("II*\0", 4);
  constexpr std::uint32_t kBits = 8 + kPixels, kResolution = kBits + 6, kIfd = kResolution + 8;
  tiff.reserve(kIfd + 2 + 12 * 12 + 4);
  put_le32(tiff, kIfd);
  append_rows(tiff, canvas, {0, 1, 2}, 0, false);
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
  if (mime_type == "image/jpeg") return {"image/jpeg", placeholder_jpeg(key, id), PictureKind::jpeg};
  if (mime_type == "image/gif") return {"image/gif", placeholder_gif(key, id), PictureKind::gif};
  if (mime_type == "image/bmp" || mime_type == "image/x-ms-bmp")
    return {std::string(mime_type), placeholder_bmp(key, id), PictureKind::bmp};
  if (mime_type == "image/svg+xml") return {"image/svg+xml", placeholder_svg(key, id), PictureKind::svg};
  if (mime_type == "image/vnd.microsoft.icon" || mime_type == "image/x-icon")
    return {std::string(mime_type), placeholder_ico(key, id), PictureKind::ico};
  if (mime_type == "image/tiff") return {"image/tiff", placeholder_tiff(key, id), PictureKind::tiff};
  if (mime_type == "image/webp") return {"image/webp", placeholder_webp(key, id), PictureKind::webp};
  // PNG for PNGs, and for types with no placeholder of their own (AVIF, HEIC, ...): labelled as what it is.
  return {"image/png", placeholder_png(key, id), PictureKind::png};
}

}  // namespace entimg::mock::detail
