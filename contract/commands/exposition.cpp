#include "exposition.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>

namespace entimg::contract::detail {
namespace {

// HELP text escapes backslash and line feed only; a label value also the double quote.
std::string escaped(std::string_view text, bool quote) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    if (c == '\\')
      out += "\\\\";
    else if (c == '\n')
      out += "\\n";
    else if (c == '"' && quote)
      out += "\\\"";
    else
      out += c;
  }
  return out;
}

}  // namespace

Histogram::Histogram(std::vector<double> upper_bounds)
    : bounds(std::move(upper_bounds)), buckets(bounds.size() + 1, 0) {}

void Histogram::observe(double value) {
  const auto at = std::lower_bound(bounds.begin(), bounds.end(), value);  // le: bound >= value
  ++buckets[static_cast<std::size_t>(at - bounds.begin())];
  sum += value;
  ++count;
}

std::string escape_label_value(std::string_view value) {
  return escaped(value, true);
}

std::string format_value(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
  char buffer[32];
  const auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, value);
  return ec == std::errc{} ? std::string(buffer, end) : "NaN";
}

void Exposition::family(std::string_view name, std::string_view help, std::string_view type) {
  text_.append("# HELP ").append(name).append(" ").append(escaped(help, false)).append("\n");
  text_.append("# TYPE ").append(name).append(" ").append(type).append("\n");
}

void Exposition::sample(std::string_view name, const Labels& labels, double value) {
  text_.append(name);
  if (!labels.empty()) {
    text_ += '{';
    for (std::size_t i = 0; i < labels.size(); ++i)
      text_.append(i ? "," : "")
          .append(labels[i].first)
          .append("=\"")
          .append(escape_label_value(labels[i].second))
          .append("\"");
    text_ += '}';
  }
  text_.append(" ").append(format_value(value)).append("\n");
}

void Exposition::histogram(std::string_view name, std::string_view help, const Histogram& h) {
  family(name, help, "histogram");
  const std::string bucket = std::string(name) + "_bucket";
  std::uint64_t cumulative = 0;
  for (std::size_t i = 0; i < h.bounds.size(); ++i) {
    cumulative += h.buckets[i];
    sample(bucket, {{"le", format_value(h.bounds[i])}}, static_cast<double>(cumulative));
  }
  sample(bucket, {{"le", "+Inf"}}, static_cast<double>(h.count));
  sample(std::string(name) + "_sum", h.sum);
  sample(std::string(name) + "_count", static_cast<double>(h.count));
}

}  // namespace entimg::contract::detail
