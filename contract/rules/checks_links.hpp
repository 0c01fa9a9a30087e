#pragma once
// What the link checks share with the page and parameter checks.
#include <string_view>

#include "failure_budget.hpp"
#include "json_access.hpp"

namespace entimg::contract::detail {

/// Each link (next, previous) of the body must carry exactly one limit=expected; reports through budget,
/// `why` saying where expected comes from.
void check_link_limits(Json body, std::string_view expected, std::string_view why, FailureBudget& budget);

}  // namespace entimg::contract::detail
