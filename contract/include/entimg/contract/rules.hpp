#pragma once
// The contract: every rule the suite checks, named after what it checks.
#include <string_view>
#include <vector>

namespace entimg::contract {

struct Rule {
  std::string_view name;  ///< snake_case, e.g. "next_link_offset"; what --only/--skip take
  std::string_view
      group;  ///< schema, cross-field, page-length, links, origin, ordering, walk, headers, parameters
  std::string_view summary;         ///< one line: the rule
  std::string_view source;          ///< where it comes from: "spec §2.2 rule 2", "reference §2.3", …
  std::string_view method = "GET";  ///< the request whose answer it judges: what a report's replay sends
};

/// Every rule, in report order.
const std::vector<Rule>& all_rules();
/// The rule of that name, or nullptr.
const Rule* find_rule(std::string_view name);

}  // namespace entimg::contract
