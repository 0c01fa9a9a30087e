#pragma once
// Links (next, previous, image) as the checks read them: parsed into parameters, their origin normalised.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "entimg/common/url.hpp"
#include "failure_budget.hpp"
#include "json_access.hpp"

namespace entimg::contract::detail {

/// A link (next/previous) as the checks read it.
struct Link {
  bool absolute = false;  ///< an http(s) URL with an authority
  common::UrlParts parts;
  common::QueryParams params;  ///< decoded, in order
};
Link parse_link(std::string_view url);
/// Every value of `key` among the parameters (copies: links are often temporaries).
std::vector<std::string> values_of(const common::QueryParams& params, std::string_view key);

/// Lower-cased "scheme://host[:port]" with the default port left out, or nullopt when not absolute http(s).
std::optional<std::string> normalised_origin(std::string_view url);

/// Each link (next, previous) of the body must carry exactly one limit=expected; reports through budget,
/// `why` saying where expected comes from.
void check_link_limits(Json body, std::string_view expected, std::string_view why, FailureBudget& budget);

}  // namespace entimg::contract::detail
