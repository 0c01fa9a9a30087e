// The placeholder PNG, its zlib stream written here rather than compressed (issue 45: zlib's level 9 over the
// 73,856 bytes of rows cost ~500 µs a picture). The rows repeat in bands of eight and each band is runs of
// two colours, so the stream is short and known in advance of any search: each new row is its filter byte,
// three literals a run and a copy of the run's first pixel (distance 3), every repeated row one copy of the
// row above (distance 577), in one block of deflate's fixed codes (RFC 1951 §3.2.6). The Adler-32 of the
// rows is summed run by run, not byte by byte. The same bytes on every machine and in the WebAssembly build.
#include <array>
#include <string>

#include "deflate.hpp"
#include "picture_canvas.hpp"
#include "placeholder_image.hpp"

namespace entimg::mock::detail {
namespace {

constexpr std::uint32_t kRowBytes = 1 + kPlaceholderWidth * 3;  // the filter byte, then RGB
constexpr std::uint32_t kRawBytes = kRowBytes * kPlaceholderHeight;

// Bits packed least significant first, as deflate packs them, into a buffer long enough for the stream.
class DeflateBits {
 public:
  explicit DeflateBits(char* out) : out_(out) {}
  void put(std::uint32_t bits, int count) {  // up to 32 bits
    pending_ |= std::uint64_t{bits} << filled_;
    filled_ += count;
    if (filled_ >= 32) {
      for (int i = 0; i < 4; ++i)
        *out_++ = static_cast<char>((pending_ >> (8 * i)) & 0xFFU);
      pending_ >>= 32;
      filled_ -= 32;
    }
  }
  /// Writes what is pending (the last byte padded with zeros); returns the end of the stream.
  char* finish() {
    for (; filled_ > 0; filled_ -= 8, pending_ >>= 8)
      *out_++ = static_cast<char>(pending_ & 0xFFU);
    filled_ = 0;
    return out_;
  }

 private:
  char* out_;
  std::uint64_t pending_ = 0;
  int filled_ = 0;
};

constexpr std::uint32_t reversed(std::uint32_t code, int length) {
  std::uint32_t out = 0;
  for (int i = 0; i < length; ++i)
    out |= ((code >> i) & 1U) << (length - 1 - i);
  return out;
}

struct Code {
  std::uint32_t bits;  // as put() takes them: a Huffman code's bits reversed, extra bits as they are
  int length;
};

// The fixed literal/length code (RFC 1951 §3.2.6) of each symbol 0..287.
constexpr std::array<Code, 288> kFixedCodes = [] {
  std::array<Code, 288> codes{};
  for (std::uint32_t s = 0; s < 288; ++s) {
    const Code plain = s < 144   ? Code{0x30 + s, 8}
                       : s < 256 ? Code{0x190 + s - 144, 9}
                       : s < 280 ? Code{s - 256, 7}
                                 : Code{0xC0 + s - 280, 8};
    codes[s] = {reversed(plain.bits, plain.length), plain.length};
  }
  return codes;
}();

// Lengths 3..258 and distances 1..32768: the first value of each code and its extra bits (§3.2.5).
constexpr std::array<std::uint16_t, 29> kLengthBase = {3,  4,  5,  6,   7,   8,   9,   10,  11, 13,
                                                       15, 17, 19, 23,  27,  31,  35,  43,  51, 59,
                                                       67, 83, 99, 115, 131, 163, 195, 227, 258};
constexpr std::array<std::uint8_t, 29> kLengthExtra = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2,
                                                       2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
constexpr std::array<std::uint16_t, 30> kDistanceBase = {
    1,   2,   3,   4,   5,   7,    9,    13,   17,   25,   33,   49,   65,    97,    129,
    193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577};
constexpr std::array<std::uint8_t, 30> kDistanceExtra = {0, 0, 0, 0, 1, 1, 2, 2,  3,  3,  4,  4,  5,  5,  6,
                                                         6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13};

// One match of 3..258 bytes at `distance`, all of its codes in one (at most 8 + 5 + 5 + 13 bits).
constexpr Code match_code(std::uint32_t length, std::uint32_t distance) {
  std::size_t l = 28;  // 258 has a code of its own, never 227 + 31
  while (kLengthBase[l] > length)
    --l;
  std::size_t d = 29;
  while (kDistanceBase[d] > distance)
    --d;
  Code code = kFixedCodes[257 + l];
  code.bits |= (length - kLengthBase[l]) << code.length;
  code.length += kLengthExtra[l];
  code.bits |= reversed(static_cast<std::uint32_t>(d), 5) << code.length;
  code.length += 5;
  code.bits |= (distance - kDistanceBase[d]) << code.length;
  code.length += kDistanceExtra[d];
  return code;
}

// The code of every match length at the two distances the picture copies from: one pixel back (a run) and
// one row back (a repeated row).
template <std::uint32_t kDistance>
constexpr std::array<Code, 259> kMatchCodes = [] {
  std::array<Code, 259> codes{};
  for (std::uint32_t length = 3; length <= 258; ++length)
    codes[length] = match_code(length, kDistance);
  return codes;
}();

void literal(DeflateBits& bits, std::uint8_t value) {
  bits.put(kFixedCodes[value].bits, kFixedCodes[value].length);
}

// `length` (at least 3) bytes copied from kDistance back, in matches of at most 258, none shorter than 3.
template <std::uint32_t kDistance>
void copy(DeflateBits& bits, std::uint32_t length) {
  while (length > 0) {
    std::uint32_t n = length < 258 ? length : 258;
    if (length - n != 0 && length - n < 3) n = length - 3;
    bits.put(kMatchCodes<kDistance>[n].bits, kMatchCodes<kDistance>[n].length);
    length -= n;
  }
}

// A new row of pixels: its filter byte (none), then each run: one pixel's three bytes and a copy of them.
void fresh_row(DeflateBits& bits, std::uint32_t row, Colour background) {
  literal(bits, 0);
  each_run(row, [&](int, int blocks, bool ink) {
    const Colour c = ink ? kInk : background;
    literal(bits, c.r);
    literal(bits, c.g);
    literal(bits, c.b);
    copy<3>(bits, static_cast<std::uint32_t>(blocks * kBlockSize - 1) * 3);
  });
}

// Adler-32 of the rows (RFC 1950 §8.2), from the sums of the bytes and of the bytes times their positions,
// run by run: s1 = 1 + Σ d_i and s2 = Σ (1 + Σ_{j<=i} d_j) = N + Σ (N - i) d_i, both mod 65521.
std::uint32_t adler_of_rows(const Canvas& canvas) {
  std::uint64_t sum = 0, weighted = 0;  // Σ d_i and Σ i d_i (below 2^41 for these rows)
  for (std::uint32_t y = 0; y < kPlaceholderHeight; ++y) {
    const std::uint64_t row_at = std::uint64_t{y} * kRowBytes + 1;  // the filter byte is 0
    each_run(canvas.rows[y / kBlockSize], [&](int first, int blocks, bool ink) {
      const Colour c = ink ? kInk : canvas.background;
      const std::uint64_t n = static_cast<std::uint64_t>(blocks) * kBlockSize;
      const std::uint64_t at = row_at + static_cast<std::uint64_t>(first) * kBlockSize * 3;
      const std::uint64_t rgb = std::uint64_t{c.r} + c.g + c.b;
      sum += n * rgb;
      weighted += rgb * (n * at + 3 * n * (n - 1) / 2) + n * (c.g + 2 * std::uint64_t{c.b});
    });
  }
  const std::uint64_t s1 = (1 + sum) % 65521;
  const std::uint64_t s2 = (kRawBytes + kRawBytes * sum - weighted) % 65521;
  return static_cast<std::uint32_t>((s2 << 16) | s1);
}

void put_u32(std::string& out, std::uint32_t v) {
  const char bytes[4] = {static_cast<char>(v >> 24), static_cast<char>(v >> 16), static_cast<char>(v >> 8),
                         static_cast<char>(v)};
  out.append(bytes, 4);
}

// Closes the chunk whose length field starts at `at`: its length, then the CRC of its type and data.
void close_chunk(std::string& out, std::size_t at) {
  const auto length = static_cast<std::uint32_t>(out.size() - at - 8);
  for (int i = 0; i < 4; ++i)
    out[at + static_cast<std::size_t>(i)] = static_cast<char>(length >> (24 - 8 * i));
  put_u32(out, crc32_of(std::string_view(out).substr(at + 4)));
}

// The rows' zlib stream (RFC 1950): header, one final block of fixed codes, Adler-32. Its longest is 16 new
// rows of 24 runs (at most 3 x 9 + 2 x 26 bits a run) and 127 rows' copies (at most 3 matches of 26 bits a
// row).
constexpr std::size_t kMostStream = 2 + 16 * (2 + 24 * 10) + 127 * 10 + 4 + 8;

void zlib_rows(std::string& out, const Canvas& canvas) {
  const std::size_t start = out.size();
  out.resize(start + kMostStream);
  out[start] = '\x78';  // deflate, 32 KiB window, no dictionary, "fastest"
  out[start + 1] = '\x01';
  DeflateBits bits(out.data() + start + 2);
  bits.put(1, 1);  // the final block
  bits.put(1, 2);  // of fixed codes
  for (std::size_t band = 0; band < kBlocksY; ++band) {
    constexpr auto kRows = static_cast<std::uint32_t>(kBlockSize);
    if (band > 0 && canvas.rows[band] == canvas.rows[band - 1]) {
      copy<kRowBytes>(bits, kRows * kRowBytes);  // the same as the row above, eight times
      continue;
    }
    fresh_row(bits, canvas.rows[band], canvas.background);
    copy<kRowBytes>(bits, (kRows - 1) * kRowBytes);
  }
  bits.put(kFixedCodes[256].bits, kFixedCodes[256].length);  // end of block
  out.resize(static_cast<std::size_t>(bits.finish() - out.data()));
  put_u32(out, adler_of_rows(canvas));
}

}  // namespace

std::string placeholder_png(std::uint64_t key, std::int64_t id) {
  const Canvas canvas = canvas_of(key, id);
  // The signature and IHDR (8-bit RGB, 192x128, deflate, no filter choice, no interlace) never change.
  static const std::string kHead = [] {
    std::string head = "\x89PNG\r\n\x1a\n";
    head.append(4, '\0');
    head += "IHDR";
    put_u32(head, kPlaceholderWidth);
    put_u32(head, kPlaceholderHeight);
    head += std::string_view("\x08\x02\x00\x00\x00", 5);
    close_chunk(head, 8);
    return head;
  }();
  std::string png;
  png.reserve(kHead.size() + 1024);
  png += kHead;
  const std::size_t idat = png.size();
  png.append(4, '\0');
  png += "IDAT";
  zlib_rows(png, canvas);
  close_chunk(png, idat);
  png += std::string_view("\0\0\0\0IEND\xAE\x42\x60\x82", 12);
  return png;
}

}  // namespace entimg::mock::detail
