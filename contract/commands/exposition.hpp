#pragma once
// Prometheus' text exposition format (version 0.0.4), written by hand: a family's # HELP and # TYPE lines,
// then its samples, label values and help text escaped as the format asks.
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace entimg::contract::detail {

using Labels = std::vector<std::pair<std::string_view, std::string>>;

/// A histogram's observations, bucket by bucket; the exposition makes the buckets cumulative.
struct Histogram {
  std::vector<double> bounds;          ///< upper bounds, ascending; +Inf is implicit
  std::vector<std::uint64_t> buckets;  ///< observations in each bound's bucket alone; one more for +Inf
  double sum = 0;
  std::uint64_t count = 0;

  explicit Histogram(std::vector<double> upper_bounds);
  void observe(double value);
};

class Exposition {
 public:
  /// Starts a family: its # HELP and # TYPE lines ("gauge", "counter", "histogram").
  void family(std::string_view name, std::string_view help, std::string_view type);
  void sample(std::string_view name, const Labels& labels, double value);
  void sample(std::string_view name, double value) { sample(name, {}, value); }
  /// A histogram family: NAME_bucket{le=…} cumulative up to +Inf, NAME_sum and NAME_count.
  void histogram(std::string_view name, std::string_view help, const Histogram& h);
  const std::string& text() const { return text_; }

 private:
  std::string text_;
};

/// A label value as the format quotes it: backslash, double quote and line feed escaped.
std::string escape_label_value(std::string_view value);
/// A sample value: shortest round-trip decimal, or +Inf, -Inf, NaN.
std::string format_value(double value);

}  // namespace entimg::contract::detail
