#include "sized_picture.hpp"

#include <algorithm>
#include <cstring>
#include <limits>
#include <string_view>

#include "deflate.hpp"

namespace entimg::mock::detail {
namespace {

constexpr std::uint64_t kMax32 = std::numeric_limits<std::uint32_t>::max();

// Reflected CRC-32 arithmetic (polynomial 0xEDB88320; bit 31 holds x^0): a * b mod P.
std::uint32_t gf2_multiply(std::uint32_t a, std::uint32_t b) {
  std::uint32_t product = 0;
  for (std::uint32_t m = 1U << 31; m != 0; m >>= 1) {
    if ((a & m) != 0) product ^= b;
    b = (b & 1U) != 0 ? (b >> 1) ^ 0xEDB88320U : b >> 1;
  }
  return product;
}

std::string le32(std::uint64_t v) {
  std::string out(4, '\0');
  for (int i = 0; i < 4; ++i)
    out[static_cast<std::size_t>(i)] = static_cast<char>((v >> (8 * i)) & 0xFF);
  return out;
}

std::string be32(std::uint64_t v) {
  std::string out(4, '\0');
  for (int i = 0; i < 4; ++i)
    out[static_cast<std::size_t>(i)] = static_cast<char>((v >> (24 - 8 * i)) & 0xFF);
  return out;
}

// PNG padding: chunks of this many zero bytes of data (ancillary, private, safe to copy: "paDd"), then one
// chunk of the rest; a chunk costs 12 bytes besides its data.
constexpr std::uint64_t kPngPaddingChunk = std::uint64_t{1} << 30;
constexpr std::string_view kPngPaddingType = "paDd";

// A GIF's first image data sub-block (after the header, the 4-colour table and the image descriptor), split
// into `splits` sub-blocks of one byte and the rest: `splits` bytes more, the same image.
std::string gif_with_splits(const std::string& gif, std::size_t splits) {
  constexpr std::size_t kFirstSubBlock = 13 + 12 + 10 + 1;
  std::string out = gif.substr(0, kFirstSubBlock);
  const std::size_t first = static_cast<unsigned char>(gif[kFirstSubBlock]);
  for (std::size_t i = 0; i < splits; ++i)
    out.append(1, '\x01').append(1, gif[kFirstSubBlock + 1 + i]);
  out.push_back(static_cast<char>(first - splits));
  out.append(gif, kFirstSubBlock + 1 + splits);
  return out;
}

}  // namespace

std::uint32_t crc32_with_zeros(std::uint32_t crc, std::uint64_t zeros) {
  std::uint32_t power = 1U << 31;   // x^0
  std::uint32_t square = 1U << 23;  // x^8: a zero byte
  for (; zeros != 0; zeros >>= 1) {
    if ((zeros & 1U) != 0) power = gf2_multiply(power, square);
    square = gf2_multiply(square, square);
  }
  return ~gf2_multiply(~crc, power);
}

SizedPicture::SizedPicture(const Placeholder& small, std::uint64_t size) {
  if (size <= small.bytes.size() || !grow(small, size)) {
    pieces_.clear();
    size_ = 0;
    add({small.bytes});
  }
}

void SizedPicture::add(Piece piece) {
  size_ += piece.unit() * piece.repeat;
  if (piece.repeat > 0 && piece.unit() > 0) pieces_.push_back(std::move(piece));
}

void SizedPicture::add_png_padding(std::uint64_t bytes) {
  const std::uint32_t type_crc = crc32_of(kPngPaddingType);
  const auto chunk = [&](std::uint64_t data, std::uint64_t repeat) {
    add({be32(data) + std::string(kPngPaddingType), data, '\0', be32(crc32_with_zeros(type_crc, data)),
         repeat});
  };
  std::uint64_t whole = bytes / (12 + kPngPaddingChunk), rest = bytes % (12 + kPngPaddingChunk);
  if (rest > 0 && rest < 12) --whole, rest += 12 + kPngPaddingChunk;  // the last chunk takes a little more
  chunk(kPngPaddingChunk, whole);
  if (rest > 0) chunk(rest - 12, 1);
}

// Each format's padding, where its decoders skip it: PNG a private ancillary chunk before IEND (an ICO's PNG
// the same, its directory saying the new size); JPEG comment segments (COM, at most 65,535 bytes each) before
// EOI, and up to 3 fill bytes (0xFF) before the marker; GIF a comment extension before the trailer (its first
// image sub-block split for 1, 2 or 4 bytes, less than a comment holds); BMP and TIFF zeros after the last
// thing their offsets point at (BMP's file size field saying so); SVG spaces before </svg>; WebP the extended
// format (VP8X) with an unknown chunk after the image. False when the format cannot be that size.
bool SizedPicture::grow(const Placeholder& small, std::uint64_t size) {
  const std::string& s = small.bytes;
  const std::uint64_t extra = size - s.size();
  const auto cut = [&](std::size_t end) { return s.substr(0, s.size() - end); };
  const auto tail = [&](std::size_t end) { return s.substr(s.size() - end); };
  switch (small.kind) {
    case PictureKind::png:
      if (extra < 12) return false;
      add({cut(12)});
      add_png_padding(extra);
      add({tail(12)});
      return true;
    case PictureKind::ico: {
      if (extra < 12 || size - 22 > kMax32) return false;
      add({s.substr(0, 14) + le32(size - 22) + s.substr(18, 4) + s.substr(22, s.size() - 34)});
      add_png_padding(extra);
      add({tail(12)});
      return true;
    }
    case PictureKind::jpeg: {
      add({cut(2)});
      const std::uint64_t segments = extra / 65537, rest = extra % 65537;
      add({"\xFF\xFE\xFF\xFF", 65533, '\0', "", segments});
      if (rest >= 4) add({"\xFF\xFE" + be32(rest - 2).substr(2), rest - 4, '\0', ""});
      add({"", rest < 4 ? rest : 0, '\xFF', tail(2)});
      return true;
    }
    case PictureKind::gif:
      return grow_gif(small, extra);
    case PictureKind::bmp:
      if (size > kMax32) return false;
      add({s.substr(0, 2) + le32(size) + s.substr(6), extra, '\0', ""});
      return true;
    case PictureKind::tiff:
      add({s, extra, '\0', ""});
      return true;
    case PictureKind::svg:
      add({cut(7), extra, ' ', tail(7)});
      return true;
    case PictureKind::webp:
      return grow_webp(small, extra & ~std::uint64_t{1});
  }
  return false;
}

bool SizedPicture::grow_gif(const Placeholder& small, std::uint64_t extra) {
  const std::string& s = small.bytes;
  if (extra == 1 || extra == 2 || extra == 4) {
    add({gif_with_splits(s, static_cast<std::size_t>(extra))});
    return true;
  }
  // A comment extension: 0x21 0xFE, sub-blocks (a length byte, then that many bytes), a 0 byte.
  std::uint64_t blocks = (extra - 3) / 256, last = (extra - 3) % 256;  // last: a sub-block of last - 1 bytes
  add({s.substr(0, s.size() - 1) + "\x21\xFE"});
  if (last == 1) --blocks, last += 256;  // no sub-block is one byte: two of 129 and 128 instead
  add({"\xFF", 255, '\0', "", blocks});
  if (last > 256) {
    add({"\x80", 128, '\0', ""});
    add({"\x7F", 127, '\0', ""});
  } else if (last > 0) {
    add({std::string(1, static_cast<char>(last - 1)), last - 1, '\0', ""});
  }
  add({std::string("\0;", 2)});
  return true;
}

bool SizedPicture::grow_webp(const Placeholder& small, std::uint64_t extra) {
  const std::string& s = small.bytes;
  const std::uint64_t total = s.size() + extra;
  if (extra < 18 + 8 || total - 8 > kMax32) return false;
  std::string head = "RIFF" + le32(total - 8) + "WEBPVP8X" + le32(10);
  head += std::string(4, '\0');  // no ICC profile, alpha, metadata or animation
  head += le32(kPlaceholderWidth - 1).substr(0, 3) + le32(kPlaceholderHeight - 1).substr(0, 3);
  head += s.substr(12);  // the VP8L chunk
  add({head + "PADD" + le32(extra - 26), extra - 26, '\0', ""});
  return true;
}

void SizedPicture::write(std::uint64_t offset, char* out, std::size_t n) const {
  std::uint64_t start = 0;
  for (const Piece& piece : pieces_) {
    const std::uint64_t unit = piece.unit(), span = unit * piece.repeat;
    if (n == 0) return;
    if (offset >= start + span) {
      start += span;
      continue;
    }
    std::uint64_t at = (offset - start) % unit;
    while (n > 0 && offset < start + span) {
      std::size_t take = 0;
      if (at < piece.head.size()) {
        take = static_cast<std::size_t>(std::min<std::uint64_t>(n, piece.head.size() - at));
        std::memcpy(out, piece.head.data() + static_cast<std::size_t>(at), take);
      } else if (at < piece.head.size() + piece.fill) {
        take = static_cast<std::size_t>(std::min<std::uint64_t>(n, piece.head.size() + piece.fill - at));
        std::memset(out, piece.fill_byte, take);
      } else {
        const std::uint64_t in_tail = at - piece.head.size() - piece.fill;
        take = static_cast<std::size_t>(std::min<std::uint64_t>(n, piece.tail.size() - in_tail));
        std::memcpy(out, piece.tail.data() + static_cast<std::size_t>(in_tail), take);
      }
      out += take;
      n -= take;
      offset += take;
      at = (at + take) % unit;
    }
    start += span;
  }
}

std::string SizedPicture::bytes() const {
  std::string out(static_cast<std::size_t>(size_), '\0');
  write(0, out.data(), out.size());
  return out;
}

}  // namespace entimg::mock::detail
