#include "entimg/contract/rules.hpp"

#include "rule_tables.hpp"

namespace entimg::contract {

// Each row lives beside its function (one rule, one place), so the table is the files' rows one after
// the other; this order is the report order.
const std::vector<Rule>& all_rules() {
  static const std::vector<Rule> rules = [] {
    std::vector<Rule> all;
    for (const auto rows : {detail::page_rules(), detail::link_rules(), detail::walk_rules(),
                            detail::header_rules(), detail::parameter_rules()})
      all.insert(all.end(), rows.begin(), rows.end());
    return all;
  }();
  return rules;
}

const Rule* find_rule(std::string_view name) {
  for (const Rule& rule : all_rules())
    if (rule.name == name) return &rule;
  return nullptr;
}

namespace {

// The functions of one shape, picked out of the table once: these run on every page.
template <typename Shape>
std::vector<Shape> rows_of_shape() {
  std::vector<Shape> out;
  for (const Rule& rule : all_rules())
    if (const auto* shape = std::get_if<Shape>(&rule.check)) out.push_back(*shape);
  return out;
}

}  // namespace

void check_page(const CheckContext& context, const Page& page, Findings& findings) {
  static const std::vector<EveryPage> rules = rows_of_shape<EveryPage>();
  for (const EveryPage& rule : rules)
    rule.check(context, page, findings);
}

void check_against_first(const CheckContext& context, const FirstPage& first, const Page& page,
                         Findings& findings) {
  static const std::vector<AgainstFirstPage> rules = rows_of_shape<AgainstFirstPage>();
  for (const AgainstFirstPage& rule : rules)
    rule.check(context, first, page, findings);
}

}  // namespace entimg::contract
