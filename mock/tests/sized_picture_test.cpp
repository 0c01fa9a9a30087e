// Pictures of their file's size (--sized-pictures): exactly that many bytes where the format can be that
// size, the padding inside the picture before its end marker, every part written on demand the same as the
// whole. Decoders read them in placeholders_decode.py (Pillow) and browser/pictures.mjs (Chromium).
#include <cstdio>
#include <string>
#include <vector>

#include <zlib.h>
#include <catch2/catch.hpp>

#include "entimg/common/prng.hpp"
#include "picture_bytes.hpp"
#include "sized_picture.hpp"

using namespace entimg::mock::detail;

namespace {

// A PNG's chunks walked to the end: each CRC right, IEND last.
void sized_png_chunks(const std::string& png, std::size_t from) {
  std::size_t at = from;
  std::string last;
  while (at + 12 <= png.size()) {
    const std::uint32_t length = entimg::mock::testing::be32(png, at);
    REQUIRE(at + 12 + length <= png.size());
    CHECK(crc32(0, reinterpret_cast<const Bytef*>(png.data() + at + 4), length + 4) ==
          entimg::mock::testing::be32(png, at + 8 + length));
    last = png.substr(at + 4, 4);
    at += 12 + length;
  }
  CHECK(at == png.size());
  CHECK(last == "IEND");
}

// The parts the padding is made of, walked as a decoder skips them, for each format.
void sized_structure(PictureKind kind, const std::string& small, const std::string& sized) {
  switch (kind) {
    case PictureKind::png:
      return sized_png_chunks(sized, 8);
    case PictureKind::ico:
      CHECK(entimg::mock::testing::le32(sized, 14) == sized.size() - 22);
      return sized_png_chunks(sized, 22 + 8);
    case PictureKind::jpeg: {
      std::size_t at = small.size() - 2;  // the scan's data ends where the small picture's EOI was
      while (sized.compare(at, 2, "\xFF\xFE") == 0)
        at += 2 + static_cast<std::size_t>(static_cast<unsigned char>(sized[at + 2]) << 8 |
                                           static_cast<unsigned char>(sized[at + 3]));
      while (at + 2 < sized.size() && sized[at] == '\xFF' && sized[at + 1] == '\xFF')
        ++at;  // fill bytes
      CHECK(at == sized.size() - 2);
      CHECK(sized.substr(at) == "\xFF\xD9");
      return;
    }
    case PictureKind::gif: {
      CHECK(sized.back() == ';');
      std::size_t at = small.size() - 1;  // a comment extension where the trailer was, unless split
      if (sized.compare(at, 2, "\x21\xFE") == 0) {
        at += 2;
        while (sized[at] != '\0')
          at += 1 + std::size_t{static_cast<unsigned char>(sized[at])};
        CHECK(at + 2 == sized.size());
      }
      return;
    }
    case PictureKind::bmp:
      CHECK(entimg::mock::testing::le32(sized, 2) == sized.size());
      return;
    case PictureKind::webp: {
      CHECK(entimg::mock::testing::le32(sized, 4) == sized.size() - 8);
      std::size_t at = 12;
      while (at + 8 <= sized.size())
        at += 8 + ((entimg::mock::testing::le32(sized, at + 4) + 1) & ~1U);
      CHECK(at == sized.size());
      return;
    }
    case PictureKind::svg:
      CHECK(sized.ends_with("</svg>\n"));
      return;
    case PictureKind::tiff:
      CHECK(sized.compare(0, small.size(), small) == 0);
      return;
  }
}

// The size a format can be nearest `target` (itself, but where the format cannot hold it).
std::uint64_t sized_expected_size(PictureKind kind, std::uint64_t small, std::uint64_t target) {
  const std::uint64_t extra = target - small;
  if ((kind == PictureKind::png || kind == PictureKind::ico) && extra < 12) return small;
  if (kind == PictureKind::webp)
    return (extra & ~std::uint64_t{1}) < 26 ? small : small + (extra & ~std::uint64_t{1});
  return target;
}

const std::vector<const char*> kSizedTypes = {
    "image/png",  "image/jpeg", "image/gif",    "image/bmp", "image/vnd.microsoft.icon",
    "image/tiff", "image/webp", "image/svg+xml"};

}  // namespace

TEST_CASE("a sized picture is its file_size, the padding inside it", "[media][sized]") {
  const std::vector<std::uint64_t> extras = {
      1,   2,   3,   4,   5,   6,   7,   11,   12,    13,    25,    26,    27,    28,     255,    256,
      257, 258, 259, 260, 511, 512, 513, 1000, 65536, 65537, 65538, 65540, 65541, 131074, 131075, 1'000'001};
  for (const char* type : kSizedTypes) {
    const Placeholder small = placeholder_for(type, 77, 77);
    for (const std::uint64_t extra : extras) {
      INFO(type << ", " << small.bytes.size() << " + " << extra << " bytes");
      const SizedPicture sized(small, small.bytes.size() + extra);
      REQUIRE(sized.size() ==
              sized_expected_size(small.kind, small.bytes.size(), small.bytes.size() + extra));
      const std::string bytes = sized.bytes();
      REQUIRE(bytes.size() == sized.size());
      if (sized.size() == small.bytes.size()) {
        CHECK(bytes == small.bytes);
        continue;
      }
      sized_structure(small.kind, small.bytes, bytes);
    }
    CHECK(SizedPicture(small, 10).size() == small.bytes.size());  // below the placeholder: as it is
  }
}

TEST_CASE("any part of a sized picture is that part of the whole", "[media][sized]") {
  const std::uint64_t seed = 45;
  std::printf("sized picture parts: seed %llu\n", static_cast<unsigned long long>(seed));
  entimg::common::Pcg32 rng(seed, 1);
  for (const char* type : kSizedTypes) {
    const Placeholder small = placeholder_for(type, 5, 5);
    const SizedPicture sized(small, small.bytes.size() + 200'000 + rng.below(200'000));
    const std::string whole = sized.bytes();
    for (int i = 0; i < 200; ++i) {
      const std::uint64_t from = rng.below(static_cast<std::uint32_t>(whole.size()));
      const std::size_t n =
          rng.below(static_cast<std::uint32_t>(whole.size() - from)) + static_cast<std::uint32_t>(i % 2);
      INFO(type << " seed " << seed << ": bytes " << from << " to " << from + n << " of " << whole.size());
      std::string part(std::min<std::size_t>(n, whole.size() - from), '\0');
      sized.write(from, part.data(), part.size());
      CHECK(part == whole.substr(from, part.size()));
    }
  }
}

TEST_CASE("a picture of gigabytes is a few pieces, its end where the format puts it", "[media][sized]") {
  const std::uint64_t size = (std::uint64_t{5} << 30) + 12345;  // over 4 GiB: PNG, JPEG, GIF, SVG and TIFF
  const std::vector<std::pair<const char*, std::string>> ends = {
      {"image/png", std::string("\0\0\0\0IEND\xAE\x42\x60\x82", 12)},
      {"image/jpeg", "\xFF\xD9"},
      {"image/gif", std::string("\0;", 2)},  // the comment's end, the trailer
      {"image/svg+xml", "  </svg>\n"},
      {"image/tiff", std::string(12, '\0')}};  // zeros after the IFD
  for (const auto& [type, end] : ends) {
    INFO(type);
    const Placeholder small = placeholder_for(type, 9, 9);
    const SizedPicture sized(small, size);
    REQUIRE(sized.size() == size);
    std::string head(small.bytes.size() - 12, '\0'), tail(end.size(), '\0');
    sized.write(0, head.data(), head.size());
    sized.write(size - tail.size(), tail.data(), tail.size());
    CHECK(head == small.bytes.substr(0, head.size()));
    CHECK(tail == end);
  }
  // Formats whose size fields are 32 bits stay the placeholder past them.
  for (const char* type : {"image/bmp", "image/webp", "image/vnd.microsoft.icon"})
    CHECK(SizedPicture(placeholder_for(type, 9, 9), size).size() == placeholder_for(type, 9, 9).bytes.size());
}

TEST_CASE("CRC-32 past a run of zeros is the CRC of the bytes with the zeros", "[media][sized]") {
  for (const std::uint64_t n : std::vector<std::uint64_t>{0, 1, 2, 3, 7, 8, 100, 4096, 65537, 1'000'003}) {
    INFO(n << " zeros");
    const std::string head = "paDd";
    const std::string with = head + std::string(n, '\0');
    const auto crc = [](const std::string& s) {
      return static_cast<std::uint32_t>(
          crc32(0, reinterpret_cast<const Bytef*>(s.data()), static_cast<uInt>(s.size())));
    };
    CHECK(crc32_with_zeros(crc(head), n) == crc(with));
  }
}
