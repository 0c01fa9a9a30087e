#include "python_number.hpp"

#include <catch2/catch.hpp>

using namespace entimg::mock::detail;

namespace {
std::string py_int(std::string_view s) {
  const auto v = parse_python_int(s);
  if (!v) return "ValueError";
  return (v->negative ? "-" : "") + v->magnitude.str();
}
}  // namespace

TEST_CASE("parse_python_int follows Python's int(str)", "[python_number]") {
  CHECK(py_int("12") == "12");
  CHECK(py_int(" 1 ") == "1");
  CHECK(py_int("+3") == "3");
  CHECK(py_int("-0") == "0");
  CHECK(py_int("007") == "7");
  CHECK(py_int("1_2") == "12");
  CHECK(py_int("\xEF\xBC\x92") == "2");  // fullwidth two
  CHECK(py_int("\xD9\xA2") == "2");      // Arabic-Indic two
  CHECK(py_int("\xE3\x80\x80"
               "5\t") == "5");  // ideographic space
  CHECK(py_int("99999999999999999999") == "99999999999999999999");
  CHECK(py_int("\xC2\x85"
               "5\xC2\xA0") == "5");  // NEL and no-break space: Unicode spaces are skipped
  CHECK(py_int("\v5\f\r\n") == "5");
  // int() skips only C's ASCII spaces: U+001C-U+001F, which str.strip() removes, make it fail.
  for (const char* bad : {"\x1c\x35", "\x1d\x35", "\x1e\x35", "\x35\x1f"})  // \x35 is '5'
    CHECK(py_int(bad) == "ValueError");
  for (const char* bad : {"", " ", "abc", "1.5", "1e1", "0x10", "_1", "1_", "1__2", "+", "- 5", "\xC2\xB2"})
    CHECK(py_int(bad) == "ValueError");
}

TEST_CASE("BigUint adds, subtracts and compares numbers of any size", "[python_number]") {
  const auto big = BigUint::from_digits("99999999999999999999");
  CHECK((big + BigUint(12)).str() == "100000000000000000011");
  CHECK(monus(big, BigUint(12)).str() == "99999999999999999987");
  CHECK(monus(BigUint(3), BigUint(12)).is_zero());
  CHECK(big > BigUint(UINT64_MAX));
  CHECK(big.saturated() == UINT64_MAX);
  CHECK(BigUint::from_digits("000").str() == "0");
  CHECK(BigUint(18446744073709551615ULL).saturated() == UINT64_MAX);
}

TEST_CASE("parse_decimal_lookup reads a filter value as Django's DecimalField and int() do",
          "[python_number]") {
  const auto value = [](std::string_view s) { return parse_decimal_lookup(s); };
  CHECK(value("5").value == 5);
  CHECK(value(" 5 ").value == 5);
  CHECK(value("1.0").value == 1);
  CHECK(value("5.9").value == 5);  // truncated toward zero
  CHECK(value("-5.9").value == -5);
  CHECK(value("1e3").value == 1000);
  CHECK(value("12E-1").value == 1);
  CHECK(value(".5").value == 0);
  CHECK(value("1_0").value == 10);
  // Python 3.11's Decimal drops every underscore (checked with /usr/bin/python3): these are numbers.
  CHECK(value("1_").value == 1);
  CHECK(value("_1").value == 1);
  CHECK(value("1__0").value == 10);
  CHECK(value("-_1").value == -1);
  CHECK(value("1e2_").value == 100);
  CHECK(value("1_.5").value == 1);
  CHECK_FALSE(value("_").valid);
  CHECK_FALSE(value("._").valid);
  CHECK(value("\xD9\xA1\xD9\xA2").value == 12);
  CHECK(value("1e40").valid);
  CHECK_FALSE(value("1e40").value.has_value());  // valid, but no id is that large
  CHECK_FALSE(value("1e50").above_maximum);
  CHECK_FALSE(value("100000000000000007629769841091887003294964970946560").above_maximum);  // the float 1e50
  CHECK(value("100000000000000007629769841091887003294964970946560.5").above_maximum);
  CHECK(value("1e51").above_maximum);
  CHECK(value("1e999999").above_maximum);
  CHECK_FALSE(value("-1e999999").above_maximum);  // NumberFilter has no minimum
  CHECK(value("-1e999999").valid);
  CHECK(value("123e-999999").value == 0);
  for (const char* bad : {"abc", "", "NaN", "inf", "-Infinity", "1e", "1..2", "--1", "0x1"})
    CHECK_FALSE(value(bad).valid);
}
