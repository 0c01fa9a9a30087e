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

void check_page(const CheckContext& context, const Page& page, Findings& findings) {
  // The functions picked out once: this runs on every page of a walk.
  static const std::vector<EveryPage> every_page = [] {
    std::vector<EveryPage> out;
    for (const Rule& rule : all_rules())
      if (const auto* shape = std::get_if<EveryPage>(&rule.check)) out.push_back(*shape);
    return out;
  }();
  for (const EveryPage& rule : every_page)
    rule.check(context, page, findings);
}

}  // namespace entimg::contract
