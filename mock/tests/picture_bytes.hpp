#pragma once
// Numbers in a picture's bytes (PNG's big-endian, BMP's, ICO's and RIFF's little-endian), for the picture
// tests.
#include <cstddef>
#include <cstdint>
#include <string>

namespace entimg::mock::testing {

inline std::uint32_t be32(const std::string& s, std::size_t at) {
  std::uint32_t v = 0;
  for (std::size_t i = 0; i < 4; ++i)
    v = (v << 8) | std::uint32_t{static_cast<unsigned char>(s[at + i])};
  return v;
}

inline std::uint32_t le32(const std::string& s, std::size_t at) {
  std::uint32_t v = 0;
  for (std::size_t i = 4; i-- > 0;)
    v = (v << 8) | std::uint32_t{static_cast<unsigned char>(s[at + i])};
  return v;
}

}  // namespace entimg::mock::testing
