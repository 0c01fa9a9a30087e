#pragma once
// The bytes of a page's records as the server sent them, for snapshots ("exactly as served").
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace entimg::contract::detail {

/// The raw text of each element of the top-level "results" array of body, a JSON object text that
/// already parsed; the last "results" member wins, as in the parsed document. nullopt when there is no
/// such member spelled without escapes, or it is not an array.
std::optional<std::vector<std::string_view>> raw_results(std::string_view body);

/// raw with the whitespace between tokens removed (never inside strings): one line of JSON Lines.
std::string compact_json(std::string_view raw);

}  // namespace entimg::contract::detail
