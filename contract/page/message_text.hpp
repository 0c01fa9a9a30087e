#pragma once
// Values and server text as a failure message shows them: short, valid UTF-8, quoted.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "json_access.hpp"

namespace entimg::contract::detail {

/// A value shown in a message: scalars (strings cut at ~80 bytes), containers by kind and size.
std::string describe(Json value);
std::string describe(const nlohmann::json& value);
/// Server text shown in a message: invalid UTF-8 replaced, cut at ~120 bytes, in quotes.
std::string quote(std::string_view text);
/// Record ids shown in a message: the first six, then "…"; "none" for no id.
std::string ids_text(const std::vector<std::int64_t>& ids);
/// Where two values first differ: descends both (a few levels), extending `pointer`, and returns "x vs y"
/// there.
std::string first_difference(const nlohmann::json& x, const nlohmann::json& y, std::string& pointer);

}  // namespace entimg::contract::detail
