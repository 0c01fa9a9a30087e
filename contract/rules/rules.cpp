#include "entimg/contract/rules.hpp"

#include "rule_tables.hpp"

namespace entimg::contract {

// Each row lives beside its function (one rule, one place), so the table is the files' rows one after
// the other; this order is the report order.
const std::vector<Rule>& all_rules() {
  static const std::vector<Rule> rules = [] {
    std::vector<Rule> all;
    for (const auto rows :
         {detail::page_rules(), detail::link_rules(), detail::walk_rules(), detail::header_rules(),
          detail::parameter_rules(), detail::side_rules(), detail::client_rules()})
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

// The functions of one shape with their names, picked out of the table once: these run on every page.
template <typename Shape>
std::vector<std::pair<std::string_view, Shape>> rows_of_shape() {
  std::vector<std::pair<std::string_view, Shape>> out;
  for (const Rule& rule : all_rules())
    if (const auto* shape = std::get_if<Shape>(&rule.check)) out.emplace_back(rule.name, *shape);
  return out;
}

}  // namespace

void check_page(const CheckContext& context, const Page& page, Findings& findings, bool side_judges_origins) {
  static const auto rules = rows_of_shape<EveryPage>();
  for (const auto& row : rules)
    if (context.runs(row.first) && (!side_judges_origins || row.second.reads != Reads::link_origins))
      row.second.check(context, page, findings);
}

void check_any_representation(const CheckContext& context, const Page& page, Findings& findings) {
  static const auto rules = rows_of_shape<EveryPage>();
  for (const auto& row : rules)
    if (context.runs(row.first) && row.second.reads == Reads::any_representation)
      row.second.check(context, page, findings);
}

void check_error_answer(const CheckContext& context, const HttpExchange& answer, Findings& findings) {
  static const auto rules = rows_of_shape<EveryPage>();
  if (answer.status < 400) return;
  // A debug page says what it is near its start: the first 256 KiB are read (a copy: the answer may be a
  // hostile server's 64 MiB).
  constexpr std::size_t kErrorBodyRead = 256u << 10;
  Page page;
  page.exchange.method = answer.method;
  page.exchange.url = answer.url;
  page.exchange.status = answer.status;
  page.exchange.headers = answer.headers;
  page.exchange.body = answer.body.substr(0, kErrorBodyRead);
  for (const auto& row : rules)
    if (context.runs(row.first) && row.second.reads == Reads::error_answers)
      row.second.check(context, page, findings);
}

void check_against_first(const CheckContext& context, const FirstPage& first, const Page& page,
                         Findings& findings) {
  static const auto rules = rows_of_shape<AgainstFirstPage>();
  for (const auto& row : rules)
    if (context.runs(row.first)) row.second.check(context, first, page, findings);
}

void check_planned(const CheckContext& context, PlanStep step, const Page& page, Findings& findings) {
  static const auto rules = rows_of_shape<PlannedPage>();
  for (const auto& row : rules)
    if (context.runs(row.first) && row.second.step == step) row.second.check(context, page, findings);
}

void check_pair(const CheckContext& context, PlanStep step, const Page& a, const Page& b,
                Findings& findings) {
  static const auto rules = rows_of_shape<PagePair>();
  for (const auto& row : rules)
    if (context.runs(row.first) && row.second.step == step) row.second.check(context, a, b, findings);
}

void check_head(const CheckContext& context, const Page& get, const HttpExchange& head, Findings& findings) {
  static const auto rules = rows_of_shape<HeadExchange>();
  for (const auto& row : rules)
    if (context.runs(row.first)) row.second.check(context, get, head, findings);
}

void check_options(const CheckContext& context, const HttpExchange& options, Findings& findings) {
  static const auto rules = rows_of_shape<OptionsExchange>();
  for (const auto& row : rules)
    if (context.runs(row.first)) row.second.check(context, options, findings);
}

void check_picture(const CheckContext& context, const PictureAsk& ask, const Followed& answer,
                   Findings& findings) {
  static const auto rules = rows_of_shape<PictureLoad>();
  for (const auto& row : rules)
    if (context.runs(row.first)) row.second.check(context, ask, answer, findings);
}

void check_follow_up(const CheckContext& context, const FollowAsk& ask, Findings& findings) {
  static const auto rules = rows_of_shape<FollowUp>();
  for (const auto& row : rules)
    if (context.runs(row.first) && row.second.step == ask.step) row.second.check(context, ask, findings);
}

void check_side(SideState& sides, const SideAsk& ask, const Page& answer, const Page* other,
                Findings& findings) {
  static const auto rules = rows_of_shape<SideAnswer>();
  for (const auto& row : rules)
    if (sides.context.runs(row.first) && row.second.side == ask.side)
      row.second.check(sides, ask, answer, other, findings);
}

}  // namespace entimg::contract
