#pragma once
// Values and server text as a failure message shows them: short, valid UTF-8, quoted.
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "json_access.hpp"

namespace entimg::contract::detail {

/// A value shown in a message: scalars (strings cut at ~80 bytes), containers by kind and size.
std::string describe(Json value);
std::string describe(const nlohmann::json& value);
/// Server text shown in a message: invalid UTF-8 replaced, cut at ~120 bytes, in quotes.
std::string quote(std::string_view text);

}  // namespace entimg::contract::detail
