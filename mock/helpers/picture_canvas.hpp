#pragma once
// What every placeholder format draws, whatever its encoding: the 192x128 picture as 24x16 blocks of 8x8
// pixels, each the background colour or white ink, the id's last digits in a 3x5 font (a cell a block).
// The formats write it a row of blocks at a time (rows of pixels within a block row are equal), which is
// what keeps a picture at a file's speed (issue 45): no pixel is looked at one by one.
#include <array>
#include <cstdint>

namespace entimg::mock::detail {

inline constexpr int kBlocksX = 24, kBlocksY = 16, kBlockSize = 8;

struct Colour {
  std::uint8_t r, g, b;
};

/// The picture of a record: its background and, for each row of blocks, bit x set where block x is ink.
struct Canvas {
  Colour background;
  std::array<std::uint32_t, kBlocksY> rows;
};

/// The picture every format draws for (key, id): a mid-dark background drawn from the key, the id's last
/// (up to 6) digits centred in white.
Canvas canvas_of(std::uint64_t key, std::int64_t id);

inline constexpr Colour kInk{255, 255, 255};

inline bool is_ink(std::uint32_t row, int block) {
  return ((row >> block) & 1U) != 0;
}

/// Calls f(first_block, blocks, ink) for each run of equal blocks of a row, left to right.
template <typename F>
void each_run(std::uint32_t row, F&& f) {
  for (int at = 0; at < kBlocksX;) {
    const bool ink = is_ink(row, at);
    int end = at + 1;
    while (end < kBlocksX && is_ink(row, end) == ink)
      ++end;
    f(at, end - at, ink);
    at = end;
  }
}

}  // namespace entimg::mock::detail
