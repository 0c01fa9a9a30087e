#pragma once
// Decimal text of offsets and limits, and their sums near 2^64 without overflow.
#include <cstdint>
#include <string>
#include <string_view>

namespace entimg::contract::detail {

/// Decimal text of n, and of a + b without overflow.
std::string decimal(std::uint64_t n);
std::string add_decimal(std::uint64_t a, std::uint64_t b);
/// True when text is ASCII digits whose value is the decimal `expected` (leading zeros allowed).
bool is_decimal_equal(std::string_view text, std::string_view expected);

}  // namespace entimg::contract::detail
