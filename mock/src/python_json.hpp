#pragma once
// What Python 3.11's json.loads says about a request body, for DRF's JSONParser error answer
// ("JSON parse error - Expecting value: line 1 column 1 (char 0)"), with DRF's strict constants.
#include <optional>
#include <string>
#include <string_view>

namespace entimg::mock::detail {

/// nullopt when json.loads accepts the UTF-8 text; else Python's message, positions in code points.
std::optional<std::string> python_json_error(std::string_view text);

}  // namespace entimg::mock::detail
