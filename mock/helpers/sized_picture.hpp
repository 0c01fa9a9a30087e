#pragma once
// A record's picture at the size its file_size says (--sized-pictures): the placeholder with padding inside
// it, before its end marker, so that it still decodes as the same picture. Made of pieces (the placeholder's
// bytes, runs of one byte, repeated chunks), any part of it written on demand: a picture of 2 GB costs the
// placeholder and a few pieces, never 2 GB (docs/mock.md, "Pictures").
#include <cstdint>
#include <string>
#include <vector>

#include "placeholder_image.hpp"

namespace entimg::mock::detail {

class SizedPicture {
 public:
  /// `small` grown to `size` bytes where its format can hold exactly that (else as near below as it can: WebP
  /// by an even size only), or `small` as it is when even that cannot be (size below the placeholder's, or
  /// too little above it for the format's smallest padding; a size past the format's 32-bit fields).
  SizedPicture(const Placeholder& small, std::uint64_t size);
  std::uint64_t size() const { return size_; }
  /// Writes the bytes [offset, offset + n) into `out`; offset + n <= size().
  void write(std::uint64_t offset, char* out, std::size_t n) const;
  /// The whole picture (for a small one, or a test).
  std::string bytes() const;

 private:
  // `repeat` times: head, `fill` bytes of `fill_byte`, tail.
  struct Piece {
    Piece(std::string head_, std::uint64_t fill_ = 0, char fill_byte_ = '\0', std::string tail_ = {},
          std::uint64_t repeat_ = 1)
        : head(std::move(head_)),
          fill(fill_),
          fill_byte(fill_byte_),
          tail(std::move(tail_)),
          repeat(repeat_) {}
    std::string head;
    std::uint64_t fill;
    char fill_byte;
    std::string tail;
    std::uint64_t repeat;
    std::uint64_t unit() const { return head.size() + fill + tail.size(); }
  };
  void add(Piece piece);
  void add_png_padding(std::uint64_t bytes);
  bool grow(const Placeholder& small, std::uint64_t size);
  bool grow_gif(const Placeholder& small, std::uint64_t extra);
  bool grow_webp(const Placeholder& small, std::uint64_t extra);
  std::vector<Piece> pieces_;
  std::uint64_t size_ = 0;
};

/// CRC-32 of what `crc` was the CRC of, followed by `zeros` zero bytes (in about log2(zeros) steps).
std::uint32_t crc32_with_zeros(std::uint32_t crc, std::uint64_t zeros);

}  // namespace entimg::mock::detail
