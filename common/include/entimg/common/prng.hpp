#pragma once
// A seeded, portable PRNG and integer distribution of our own: std::uniform_int_distribution
// gives different numbers on different standard libraries, and the mock's collection must be
// identical on every machine.
#include <cstdint>

namespace entimg::common {

/// SplitMix64 finaliser: a good 64-bit mix, used to derive independent streams from (seed, index).
constexpr std::uint64_t mix64(std::uint64_t x) noexcept {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

/// PCG32 (XSH-RR), the generator Catch2 also uses; 64-bit state, 32-bit output.
class Pcg32 {
 public:
  constexpr Pcg32(std::uint64_t seed, std::uint64_t stream) noexcept : inc_((stream << 1U) | 1U) {
    next_u32();
    state_ += seed;
    next_u32();
  }
  constexpr std::uint32_t next_u32() noexcept {
    const std::uint64_t old = state_;
    state_ = old * 6364136223846793005ULL + inc_;
    const auto xorshifted = static_cast<std::uint32_t>(((old >> 18U) ^ old) >> 27U);
    const auto rot = static_cast<std::uint32_t>(old >> 59U);
    return (xorshifted >> rot) | (xorshifted << ((32U - rot) & 31U));
  }
  constexpr std::uint64_t next_u64() noexcept { return (std::uint64_t{next_u32()} << 32U) | next_u32(); }
  /// Uniform integer in [0, bound), bound > 0, without modulo bias (Lemire's method).
  constexpr std::uint32_t below(std::uint32_t bound) noexcept {
    std::uint64_t m = std::uint64_t{next_u32()} * bound;
    auto low = static_cast<std::uint32_t>(m);
    if (low < bound) {
      const std::uint32_t threshold = (0U - bound) % bound;
      while (low < threshold) {
        m = std::uint64_t{next_u32()} * bound;
        low = static_cast<std::uint32_t>(m);
      }
    }
    return static_cast<std::uint32_t>(m >> 32U);
  }
  /// Uniform integer in [lo, hi], lo <= hi.
  constexpr std::int64_t between(std::int64_t lo, std::int64_t hi) noexcept {
    const auto span = static_cast<std::uint64_t>(hi - lo) + 1U;
    if (span <= 0xffffffffULL) return lo + static_cast<std::int64_t>(below(static_cast<std::uint32_t>(span)));
    return lo + static_cast<std::int64_t>(next_u64() % span);  // spans this wide are never used for data
  }
  /// True with probability percent/100.
  constexpr bool chance(std::uint32_t percent) noexcept { return below(100) < percent; }

 private:
  std::uint64_t state_ = 0;
  std::uint64_t inc_;
};

}  // namespace entimg::common
