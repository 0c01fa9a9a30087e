#include "entimg/mock/vary.hpp"

#include <algorithm>

#include "entimg/common/ascii.hpp"

namespace entimg::mock {

void patch_vary_headers(HttpResponse& response, std::string_view header) {
  for (auto& [name, value] : response.headers) {
    if (!common::iequals_ascii(name, "Vary")) continue;
    std::string_view rest = value;
    while (!rest.empty()) {
      const std::size_t comma = std::min(rest.find(','), rest.size());
      const std::string_view element = common::trim(rest.substr(0, comma));
      if (element == "*" || common::iequals_ascii(element, header)) return;
      rest.remove_prefix(std::min(comma + 1, rest.size()));
    }
    value += ", " + std::string(header);
    return;
  }
  response.headers.emplace_back("Vary", std::string(header));
}

}  // namespace entimg::mock
