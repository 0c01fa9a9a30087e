#include "python_number.hpp"
#include "utf8.hpp"

#include <algorithm>
#include <array>
#include <compare>
#include <limits>

namespace entimg::mock::detail {
namespace {

// Code points of the digit zero of every Unicode "Nd" block (Unicode 14, as in Python 3.11);
// each is followed by the digits one to nine. Generated with unicodedata, not typed by hand.
constexpr std::array<char32_t, 66> kDigitZeros = {
    0x30,    0x660,   0x6f0,   0x7c0,   0x966,   0x9e6,   0xa66,   0xae6,   0xb66,   0xbe6,   0xc66,
    0xce6,   0xd66,   0xde6,   0xe50,   0xed0,   0xf20,   0x1040,  0x1090,  0x17e0,  0x1810,  0x1946,
    0x19d0,  0x1a80,  0x1a90,  0x1b50,  0x1bb0,  0x1c40,  0x1c50,  0xa620,  0xa8d0,  0xa900,  0xa9d0,
    0xa9f0,  0xaa50,  0xabf0,  0xff10,  0x104a0, 0x10d30, 0x11066, 0x110f0, 0x11136, 0x111d0, 0x112f0,
    0x11450, 0x114d0, 0x11650, 0x116c0, 0x11730, 0x118e0, 0x11950, 0x11c50, 0x11d50, 0x11da0, 0x16a60,
    0x16ac0, 0x16b50, 0x1d7ce, 0x1d7d8, 0x1d7e2, 0x1d7ec, 0x1d7f6, 0x1e140, 0x1e2f0, 0x1e950, 0x1fbf0};

int digit_value(char32_t c) {
  for (const char32_t zero : kDigitZeros)
    if (c >= zero && c < zero + 10) return static_cast<int>(c - zero);
  return -1;
}

std::u32string to_code_points(std::string_view s) {
  std::u32string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size();)
    out.push_back(next_code_point(s, i));
  return out;
}

// Reads digits with Python's underscore rule (single '_' only between digits) from cp[pos].
// Appends ASCII digits to out and stops at the first character that cannot continue the run.
void read_digits(const std::u32string& cp, std::size_t& pos, std::string& out) {
  bool last_was_digit = false;
  while (pos < cp.size()) {
    const int d = digit_value(cp[pos]);
    if (d >= 0) {
      out.push_back(static_cast<char>('0' + d));
      last_was_digit = true;
    } else if (cp[pos] == U'_' && last_was_digit && pos + 1 < cp.size() && digit_value(cp[pos + 1]) >= 0) {
      last_was_digit = false;
    } else {
      break;
    }
    ++pos;
  }
}

bool equals_ignore_case(std::u32string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    char32_t c = a[i];
    if (c >= U'A' && c <= U'Z') c = c - U'A' + U'a';
    if (c != static_cast<char32_t>(b[i])) return false;
  }
  return true;
}

}  // namespace

BigUint BigUint::from_digits(std::string_view digits) {
  BigUint v;
  const std::size_t first = digits.find_first_not_of('0');
  v.digits_ = first == std::string_view::npos ? "0" : std::string(digits.substr(first));
  return v;
}

std::uint64_t BigUint::saturated() const {
  constexpr auto kMax = std::numeric_limits<std::uint64_t>::max();
  if (digits_.size() > 20) return kMax;
  std::uint64_t v = 0;
  for (const char c : digits_) {
    const auto d = static_cast<std::uint64_t>(c - '0');
    if (v > (kMax - d) / 10) return kMax;
    v = v * 10 + d;
  }
  return v;
}

std::optional<std::int64_t> as_int64(const PyInt& n) {
  if (n.magnitude > BigUint(static_cast<std::uint64_t>(INT64_MAX))) return std::nullopt;
  const auto m = static_cast<std::int64_t>(n.magnitude.saturated());
  return n.negative ? -m : m;
}

BigUint operator+(const BigUint& a, const BigUint& b) {
  std::string out;
  const std::string &x = a.digits_, &y = b.digits_;
  out.reserve(std::max(x.size(), y.size()) + 1);
  int carry = 0;
  for (std::size_t i = 0; i < std::max(x.size(), y.size()) || carry; ++i) {
    int s = carry;
    if (i < x.size()) s += x[x.size() - 1 - i] - '0';
    if (i < y.size()) s += y[y.size() - 1 - i] - '0';
    out.push_back(static_cast<char>('0' + s % 10));
    carry = s / 10;
  }
  std::reverse(out.begin(), out.end());
  return BigUint::from_digits(out);
}

BigUint monus(const BigUint& a, const BigUint& b) {
  if (a <= b) return BigUint{};
  std::string out = a.digits_;
  int borrow = 0;
  for (std::size_t i = 0; i < out.size(); ++i) {
    const std::size_t at = out.size() - 1 - i;
    int d = out[at] - '0' - borrow - (i < b.digits_.size() ? b.digits_[b.digits_.size() - 1 - i] - '0' : 0);
    borrow = d < 0 ? 1 : 0;
    out[at] = static_cast<char>('0' + (d + 10) % 10);
  }
  return BigUint::from_digits(out);
}

std::strong_ordering operator<=>(const BigUint& a, const BigUint& b) {
  if (a.digits_.size() != b.digits_.size()) return a.digits_.size() <=> b.digits_.size();
  return a.digits_.compare(b.digits_) <=> 0;
}

namespace {

// int(str) keeps ASCII as it is and turns every other Unicode space into ' ' (CPython's
// _PyUnicode_TransformDecimalAndSpaceToASCII), then skips C's isspace() only: U+001C-U+001F, which
// str.strip() removes, make int() fail.
bool is_int_space(char32_t c) {
  return c < 0x80 ? c == ' ' || (c >= 0x09 && c <= 0x0d) : is_python_space(c);
}

template <typename IsSpace>
std::string_view strip_code_points(std::string_view s, IsSpace is_space) {
  // Leading: decode forward; trailing: find the last non-space code point's end.
  std::size_t begin = 0;
  while (begin < s.size()) {
    std::size_t i = begin;
    if (!is_space(next_code_point(s, i))) break;
    begin = i;
  }
  std::size_t end = begin, i = begin;
  while (i < s.size()) {
    const char32_t c = next_code_point(s, i);
    if (!is_space(c)) end = i;
  }
  return s.substr(begin, end - begin);
}

}  // namespace

std::string_view strip_python_whitespace(std::string_view s) {
  return strip_code_points(s, is_python_space);
}

std::optional<PyInt> parse_python_int(std::string_view utf8) {
  // Plain ASCII digits, what nearly every ?offset= and ?limit= is: the same value, without the code points.
  if (!utf8.empty() && std::all_of(utf8.begin(), utf8.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return PyInt{false, BigUint::from_digits(utf8)};
  const std::u32string cp = to_code_points(strip_code_points(utf8, is_int_space));
  std::size_t pos = 0;
  PyInt result;
  if (pos < cp.size() && (cp[pos] == U'+' || cp[pos] == U'-')) result.negative = cp[pos++] == U'-';
  std::string digits;
  read_digits(cp, pos, digits);
  if (digits.empty() || pos != cp.size()) return std::nullopt;
  result.magnitude = BigUint::from_digits(digits);
  if (result.magnitude.is_zero()) result.negative = false;
  return result;
}

namespace {

// A finite Decimal's text in its parts: [sign] int_part [. frac_part] [e [sign] exp_digits].
struct DecimalText {
  bool negative = false;
  std::string int_part, frac_part, exp_digits;
  bool exp_negative = false;
};

// The parts of a Decimal as CPython's decimal reads it; nullopt for what it does not take, and for the
// infinities and NaNs it takes and Django's DecimalField then rejects as not finite.
std::optional<DecimalText> read_decimal_text(std::string_view utf8) {
  std::u32string cp = to_code_points(strip_python_whitespace(utf8));
  // CPython's C decimal drops every underscore before it parses ("1_", "_1", "1__0" and "1e2_" are
  // numbers), looser than int()'s PEP 515 rule.
  std::erase(cp, U'_');
  std::size_t pos = 0;
  DecimalText text;
  if (pos < cp.size() && (cp[pos] == U'+' || cp[pos] == U'-')) text.negative = cp[pos++] == U'-';
  const std::u32string_view rest = std::u32string_view(cp).substr(pos);
  if (equals_ignore_case(rest, "inf") || equals_ignore_case(rest, "infinity")) return std::nullopt;
  read_digits(cp, pos, text.int_part);
  if (pos < cp.size() && cp[pos] == U'.') {
    ++pos;
    read_digits(cp, pos, text.frac_part);
  }
  if (text.int_part.empty() && text.frac_part.empty()) return std::nullopt;  // also NaN, sNaN
  if (pos < cp.size() && (cp[pos] == U'e' || cp[pos] == U'E')) {
    ++pos;
    if (pos < cp.size() && (cp[pos] == U'+' || cp[pos] == U'-')) text.exp_negative = cp[pos++] == U'-';
    read_digits(cp, pos, text.exp_digits);
    if (text.exp_digits.empty()) return std::nullopt;
  }
  if (pos != cp.size()) return std::nullopt;
  return text;
}

}  // namespace

DecimalLookup parse_decimal_lookup(std::string_view utf8) {
  const std::optional<DecimalText> text = read_decimal_text(utf8);
  if (!text) return {};
  const auto& [negative, int_part, frac_part, exp_digits, exp_negative] = *text;

  DecimalLookup out{true, false, std::nullopt};
  // value = int_part.frac_part × 10^exp. Work out its integer part and whether a non-zero
  // fraction was cut off, without building numbers longer than the checks below need.
  std::string mantissa = int_part + frac_part;
  if (BigUint::from_digits(mantissa).is_zero()) {
    out.value = 0;
    return out;
  }
  constexpr std::uint64_t kDigitCap = 128;  // far past the 51 digits of the 1e50 bound
  const std::uint64_t e = BigUint::from_digits(exp_digits.empty() ? "0" : exp_digits).saturated();
  const auto frac_len = static_cast<std::uint64_t>(frac_part.size());
  bool cut_fraction = false;
  std::string integer_digits;
  if (!exp_negative && e >= frac_len) {
    if (e - frac_len > kDigitCap) {
      out.above_maximum = !negative;  // a huge magnitude: above the bound, or a negative no id has
      return out;
    }
    integer_digits = mantissa + std::string(static_cast<std::size_t>(e - frac_len), '0');
  } else {
    const std::uint64_t drop = !exp_negative               ? frac_len - e
                               : e > UINT64_MAX - frac_len ? UINT64_MAX
                                                           : frac_len + e;
    const std::size_t keep = drop >= mantissa.size() ? 0 : mantissa.size() - static_cast<std::size_t>(drop);
    integer_digits = mantissa.substr(0, keep);
    cut_fraction = mantissa.find_first_not_of('0', keep) != std::string::npos;
  }
  const BigUint magnitude = BigUint::from_digits(integer_digits.empty() ? "0" : integer_digits);
  // MaxValueValidator(1e50) compares the Decimal with the float 1e50, exactly.
  static const BigUint kMaximum = BigUint::from_digits("100000000000000007629769841091887003294964970946560");
  if (!negative && (magnitude > kMaximum || (magnitude == kMaximum && cut_fraction))) {
    out.above_maximum = true;
    return out;
  }
  const std::uint64_t m = magnitude.saturated();
  constexpr auto kMaxPositive = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
  if (!negative && m <= kMaxPositive) out.value = static_cast<std::int64_t>(m);
  if (negative && m <= kMaxPositive) out.value = -static_cast<std::int64_t>(m);
  if (negative && m == kMaxPositive + 1) out.value = std::numeric_limits<std::int64_t>::min();
  return out;
}

}  // namespace entimg::mock::detail
