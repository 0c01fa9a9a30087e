#include "decimal.hpp"

#include <algorithm>
#include <cstdint>

namespace entimg::contract::detail {

std::string decimal(std::uint64_t n) {
  return std::to_string(n);
}

std::string add_decimal(std::uint64_t a, std::uint64_t b) {
  if (a <= UINT64_MAX - b) return std::to_string(a + b);
  // Schoolbook addition of the two decimal strings: only offsets near 2^64 get here.
  const std::string x = std::to_string(a), y = std::to_string(b);
  std::string out;
  int carry = 0;
  for (std::size_t i = 0; i < std::max(x.size(), y.size()) || carry; ++i) {
    int digit = carry;
    if (i < x.size()) digit += x[x.size() - 1 - i] - '0';
    if (i < y.size()) digit += y[y.size() - 1 - i] - '0';
    out.push_back(static_cast<char>('0' + digit % 10));
    carry = digit / 10;
  }
  std::reverse(out.begin(), out.end());
  return out;
}

bool is_decimal_equal(std::string_view text, std::string_view expected) {
  if (text.empty()) return false;
  for (const char c : text)
    if (c < '0' || c > '9') return false;
  while (text.size() > 1 && text.front() == '0')
    text.remove_prefix(1);
  return text == expected;
}

}  // namespace entimg::contract::detail
