#pragma once
// How Python and Django read numbers out of query strings, reproduced so that the mock accepts
// and rejects exactly the values the real service does (reference §2.1 and §1.3).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace entimg::mock::detail {

/// A non-negative integer of any size, kept as canonical decimal digits ("0", "12", "9999…").
class BigUint {
 public:
  BigUint() : digits_("0") {}
  explicit BigUint(std::uint64_t value) : digits_(std::to_string(value)) {}
  /// From ASCII digits; leading zeros are dropped.
  static BigUint from_digits(std::string_view digits);

  const std::string& str() const { return digits_; }
  bool is_zero() const { return digits_ == "0"; }
  /// The value, or UINT64_MAX when it does not fit.
  std::uint64_t saturated() const;

  friend BigUint operator+(const BigUint& a, const BigUint& b);
  /// a - b for a >= b; 0 otherwise.
  friend BigUint monus(const BigUint& a, const BigUint& b);
  friend std::strong_ordering operator<=>(const BigUint& a, const BigUint& b);
  friend bool operator==(const BigUint& a, const BigUint& b) = default;

 private:
  std::string digits_;
};

/// Python's int(str): surrounding Unicode whitespace, one sign, decimal digits of any script,
/// single underscores between digits. nullopt where Python raises ValueError.
struct PyInt {
  bool negative = false;
  BigUint magnitude;
};
std::optional<PyInt> parse_python_int(std::string_view utf8);
/// A Python int that fits 64 bits signed; nullopt beyond.
std::optional<std::int64_t> as_int64(const PyInt& n);

/// The outcome of Django's forms.DecimalField on a filter value, truncated to an integer the way
/// Django's IntegerField.get_prep_value (int(Decimal)) does for the lookup.
struct DecimalLookup {
  bool valid = false;                 ///< false: "Enter a number."
  bool above_maximum = false;         ///< django-filter's NumberFilter caps values at the float 1e50
  std::optional<std::int64_t> value;  ///< nullopt: valid but outside any id's range, so matches nothing
};
DecimalLookup parse_decimal_lookup(std::string_view utf8);

/// Python's str.strip() with no argument.
std::string_view strip_python_whitespace(std::string_view utf8);

}  // namespace entimg::mock::detail
