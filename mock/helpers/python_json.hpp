#pragma once
// What Python 3.11's json.loads says about a request body, for DRF's JSONParser error answer
// ("JSON parse error - Expecting value: line 1 column 1 (char 0)"), with DRF's strict constants.
#include <optional>
#include <string>
#include <string_view>

namespace entimg::mock::detail {

struct PythonJsonOutcome {
  std::optional<std::string> error;  ///< Python's message, positions in code points; nullopt when accepted
  bool too_deep = false;             ///< nested beyond Python's recursion limit (RecursionError: a 500)
};

/// What DRF's JSONParser (codecs' UTF-8 reader, then json.load) makes of a request body.
PythonJsonOutcome python_json_check(std::string_view text);

}  // namespace entimg::mock::detail
