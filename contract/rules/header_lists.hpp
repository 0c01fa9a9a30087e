#pragma once
// Header values as the header rules read them: every line of a name, the elements of comma lists.
#include <string_view>
#include <vector>

#include "entimg/contract/http.hpp"

namespace entimg::contract::detail {

/// Values of every header of that name (a list header may come in several lines).
std::vector<std::string_view> header_values(const HttpExchange& exchange, std::string_view name);
/// The non-empty, trimmed elements of comma-separated header values.
std::vector<std::string_view> list_elements(const std::vector<std::string_view>& values);
/// Whether the answer's Vary names the header (any case, in any of its lines) or is "*".
bool vary_names(const HttpExchange& exchange, std::string_view name);

}  // namespace entimg::contract::detail
