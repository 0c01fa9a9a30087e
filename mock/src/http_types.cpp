#include "entimg/mock/http_types.hpp"

#include "entimg/common/ascii.hpp"

namespace entimg::mock {

std::optional<std::string> HttpRequest::header(std::string_view name) const {
  std::optional<std::string> value;
  for (const auto& [k, v] : headers) {
    if (!common::iequals_ascii(k, name)) continue;
    const auto b = v.find_first_not_of(" \t"), e = v.find_last_not_of(" \t");
    const std::string stripped = b == std::string::npos ? "" : v.substr(b, e - b + 1);
    value = value ? *value + "," + stripped : stripped;
  }
  return value;
}

}  // namespace entimg::mock
