#include "header_lists.hpp"

#include "entimg/common/ascii.hpp"

namespace entimg::contract::detail {

std::vector<std::string_view> header_values(const HttpExchange& exchange, std::string_view name) {
  std::vector<std::string_view> out;
  for (const auto& [k, v] : exchange.headers)
    if (common::iequals_ascii(k, name)) out.emplace_back(v);
  return out;
}

std::vector<std::string_view> list_elements(const std::vector<std::string_view>& values) {
  std::vector<std::string_view> out;
  for (std::string_view value : values) {
    while (true) {
      const std::size_t comma = value.find(',');
      const std::string_view element = common::trim(value.substr(0, comma));
      if (!element.empty()) out.push_back(element);
      if (comma == std::string_view::npos) break;
      value.remove_prefix(comma + 1);
    }
  }
  return out;
}

bool vary_names(const HttpExchange& exchange, std::string_view name) {
  for (const std::string_view token : list_elements(header_values(exchange, "Vary")))
    if (token == "*" || common::ascii_lowered(token) == common::ascii_lowered(name)) return true;
  return false;
}

}  // namespace entimg::contract::detail
