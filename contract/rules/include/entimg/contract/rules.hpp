#pragma once
// The contract: every rule the suite checks, each one row that holds its name, help and function. The
// runner, --list, --only/--skip, the reports and the test of docs/contract-rules.md all read this table.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "entimg/contract/checks.hpp"

namespace entimg::contract {

// The shapes of rules: which answers a rule's function is given.

/// What of an answer an EveryPage rule reads, for the answers only some of the rules judge.
enum class Reads {
  json_page,           ///< the JSON page
  any_representation,  ///< headers that hold for any representation: the browsable HTML is judged too
  link_origins,        ///< its links' origins: on an answer asked with a proxy's or another Host's headers,
                       ///< the side's own rule judges them
  error_answers,       ///< an answer with an error status, whatever was asked (check_error_answer): an
                       ///< unknown URL's 404, a 5xx met anywhere (a picture's, a record's)
};
/// Judges every page the suite fetches, on its own (check_page runs these).
struct EveryPage {
  void (*check)(const CheckContext&, const Page&, Findings&);
  Reads reads = Reads::json_page;
};
/// The answers of the quick plan a PlannedPage or PagePair rule judges: the plan hands each step's answers
/// to every row of that step (check_planned, check_pair), so no rule is called by its name.
enum class PlanStep {
  first_page,       ///< PlannedPage: the first page, asked with no parameters
  parameter_probe,  ///< PlannedPage: each page asked with a limit or offset DRF replaces
  next_page,        ///< PagePair: consecutive pages: the first and the second (offset=12); a walk's
  format_json,      ///< PagePair: the first page asked with format=json, then without
  refetch,          ///< PagePair: a random middle page, then the same page again
};
/// Judges one page the plan fetches for it (the first page, a parameter probe).
struct PlannedPage {
  PlanStep step;
  void (*check)(const CheckContext&, const Page&, Findings&);
};
/// Judges two pages: consecutive ones, the same one fetched twice, with and without format.
struct PagePair {
  PlanStep step;
  void (*check)(const CheckContext&, const Page& a, const Page& b, Findings&);
};
/// Judges a HEAD exchange against the GET page of the same URL.
struct HeadExchange {
  void (*check)(const CheckContext&, const Page& get, const HttpExchange& head, Findings&);
};
/// Judges an OPTIONS exchange.
struct OptionsExchange {
  void (*check)(const CheckContext&, const HttpExchange& options, Findings&);
};
/// The first page the others are judged against: the quick plan's, or a full walk's.
struct FirstPage {
  std::uint64_t count = 0;  ///< its count
  std::string_view url;
  std::string_view name;  ///< "the first page", "the walk's first page": what messages call it
};
/// Judges a page against the first page of the quick plan or of the walk (check_against_first runs these).
struct AgainstFirstPage {
  void (*check)(const CheckContext&, const FirstPage& first, const Page&, Findings&);
};
/// Judges an answer of its side of the quick plan (SideAsk) with `other`, the answer to the same URL asked
/// the plain way (or as the other representation), before or after it; nullptr when there is none. The sides'
/// plan (contract/run/sides.cpp) hands each answer to every row of its side (check_side).
struct SideAnswer {
  PlanSide side;
  void (*check)(SideState& sides, const SideAsk& ask, const Page& answer, const Page* other, Findings&);
};
/// Judges a record's picture as a client loads it (the quick plan's pages' records, a full walk's).
struct PictureLoad {
  void (*check)(const CheckContext&, const PictureAsk& ask, const Followed& answer, Findings&);
};
/// Judges what a client asks past the list (a record opened, the slashless path, a page revalidated): the
/// plan hands each step's answers to every row of that step (check_follow_up).
struct FollowUp {
  FollowStep step;
  void (*check)(const CheckContext&, const FollowAsk& ask, Findings&);
};
/// Judged over a full walk: WalkChecker calls `page` on each page in order and `end` once.
struct WalkPages {
  void (*page)(WalkState&, const Page&, Findings&) = nullptr;
  void (*end)(const WalkState&, Findings&) = nullptr;
};

using RuleCheck = std::variant<EveryPage, PlannedPage, PagePair, HeadExchange, OptionsExchange,
                               AgainstFirstPage, SideAnswer, PictureLoad, FollowUp, WalkPages>;

struct Rule {
  std::string_view name;  ///< snake_case, e.g. "next_link_offset"; what --only/--skip take
  std::string_view
      group;  ///< schema, cross-field, page-length, links, origin, ordering, walk, headers, parameters
  std::string_view summary;  ///< one line: the rule
  std::string_view source;   ///< where it comes from: "spec §2.2 rule 2", "reference §2.3", …
  RuleCheck check;           ///< the rule's function, in the shape of the answers it judges
  /// The request whose answer it judges: what a report's replay sends.
  std::string_view method() const {
    return std::holds_alternative<HeadExchange>(check)      ? "HEAD"
           : std::holds_alternative<OptionsExchange>(check) ? "OPTIONS"
                                                            : "GET";
  }
};

/// Every rule, in report order.
const std::vector<Rule>& all_rules();
/// The rule of that name, or nullptr.
const Rule* find_rule(std::string_view name);

/// The function of the rule of that name, in the shape the caller needs; throws std::logic_error when
/// there is no such rule or it has another shape. For the tests, which judge one rule at a time: the
/// plans reach their rules through the rows' shapes, steps, sides and what they read, below.
template <typename Shape>
const Shape& rule_check(std::string_view name) {
  const Rule* rule = find_rule(name);
  const Shape* shape = rule ? std::get_if<Shape>(&rule->check) : nullptr;
  if (shape == nullptr) throw std::logic_error("no rule " + std::string(name) + " of that shape");
  return *shape;
}

/// Every EveryPage rule on the page, in report order: what the runner does with each page it fetches.
/// With `side_judges_origins` (an answer asked with a proxy's or another Host's headers, whose origins the
/// side's rule judges) the rules that read the links' origins are left out.
void check_page(const CheckContext& context, const Page& page, Findings& findings,
                bool side_judges_origins = false);
/// The EveryPage rules that read what holds for any representation, on an answer that is not a JSON page
/// (the browsable HTML).
void check_any_representation(const CheckContext& context, const Page& page, Findings& findings);
/// Every AgainstFirstPage rule on a page after the first: what the quick plan and WalkChecker do.
void check_against_first(const CheckContext& context, const FirstPage& first, const Page& page,
                         Findings& findings);
/// The EveryPage rules that read error answers, on an answer that is not a page of the collection (an unknown
/// URL's, a picture's, a record's detail route's).
void check_error_answer(const CheckContext& context, const HttpExchange& answer, Findings& findings);
/// Every PlannedPage rule of that step on the page the quick plan picked for it.
void check_planned(const CheckContext& context, PlanStep step, const Page& page, Findings& findings);
/// Every PagePair rule of that step on the two pages the quick plan picked for it, in the step's order.
void check_pair(const CheckContext& context, PlanStep step, const Page& a, const Page& b, Findings& findings);
/// Every HeadExchange rule on a HEAD exchange and the GET page of the same URL.
void check_head(const CheckContext& context, const Page& get, const HttpExchange& head, Findings& findings);
/// Every OptionsExchange rule on an OPTIONS exchange.
void check_options(const CheckContext& context, const HttpExchange& options, Findings& findings);
/// Every PictureLoad rule on a picture and the answer it led to.
void check_picture(const CheckContext& context, const PictureAsk& ask, const Followed& answer,
                   Findings& findings);
/// Every FollowUp rule of the ask's step on its answer.
void check_follow_up(const CheckContext& context, const FollowAsk& ask, Findings& findings);
/// Every SideAnswer rule of the ask's side on its answer.
void check_side(SideState& sides, const SideAsk& ask, const Page& answer, const Page* other,
                Findings& findings);

}  // namespace entimg::contract
