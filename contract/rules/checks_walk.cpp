// Ordering within and across pages, and the walk along next over the whole collection: WalkChecker
// keeps what the walk has seen and the walk rules judge it.
#include <algorithm>

#include "entimg/contract/checks.hpp"
#include "failure_budget.hpp"
#include "json_access.hpp"
#include "json_parse.hpp"
#include "links.hpp"
#include "message_text.hpp"
#include "rule_tables.hpp"

namespace entimg::contract {
namespace {

using detail::Json;

enum class Order { kLess, kEqual, kGreater, kIncomparable };

template <typename T>
Order order_of(const T& a, const T& b) {
  return a < b ? Order::kLess : (b < a ? Order::kGreater : Order::kEqual);
}

bool is_negative(Json integer) {
  return integer.type() == simdjson::dom::element_type::INT64 && integer.get_int64().value_unsafe() < 0;
}

// Numbers by value (exactly for integers of either sign, as doubles otherwise), strings bytewise.
Order compare_keys(Json a, Json b) {
  // Two ids that fit an int64, as nearly every record's: one comparison (it runs on every record).
  if (a.type() == simdjson::dom::element_type::INT64 && b.type() == simdjson::dom::element_type::INT64)
    return order_of(a.get_int64().value_unsafe(), b.get_int64().value_unsafe());
  if (detail::is_integer(a) && detail::is_integer(b)) {
    const bool a_negative = is_negative(a), b_negative = is_negative(b);
    if (a_negative || b_negative) {
      if (!b_negative) return Order::kLess;
      if (!a_negative) return Order::kGreater;
      return order_of(a.get_int64().value_unsafe(), b.get_int64().value_unsafe());
    }
    return order_of(a.get_uint64().value_unsafe(), b.get_uint64().value_unsafe());
  }
  if (a.is_number() && b.is_number())
    return order_of(a.get_double().value_unsafe(), b.get_double().value_unsafe());
  if (a.is_string() && b.is_string())
    return order_of(a.get_string().value_unsafe(), b.get_string().value_unsafe());
  return Order::kIncomparable;
}

// A member's value when it can order records: a number or a string.
std::optional<Json> orderable(std::optional<Json> value) {
  return value && (value->is_number() || value->is_string()) ? value : std::nullopt;
}

// The record's ordering value when it is a number or a string.
std::optional<Json> order_value(Json record, const std::string& key) {
  return orderable(detail::member(record, key));
}

/// "Records in results are in ascending order of id" (spec §2.2 rule 3), strictly: ids are unique;
/// --order-key names another (unique) field.
void results_ascending(const CheckContext& context, const Page& page, Findings& findings) {
  const auto results = detail::result_records(page);
  if (!results) return;
  const std::string& key = context.order_key;
  const bool by_id = key == "id";  // the default: found as the body was parsed
  detail::FailureBudget budget(findings, "results_ascending", page.exchange.url);
  std::optional<Json> previous;
  std::size_t previous_index = 0;
  std::size_t i = 0;
  for (const RecordMembers& members : *results) {
    const std::size_t index = i++;
    const Json record = members.record;
    const auto raw = by_id ? members.id() : detail::member(record, key);
    const auto value = orderable(raw);
    if (!value) {
      budget.fail("expected the record to have " + key + " (a number or a string) to order by, got " +
                      (!raw ? std::string(record.is_object() ? "none" : detail::describe(record))
                            : detail::describe(*raw)),
                  detail::record_pointer(index, key), detail::record_id(record));
      previous.reset();
      continue;
    }
    if (previous) {
      const Order order = compare_keys(*previous, *value);
      if (order == Order::kLess) {
        budget.pass();
      } else {
        budget.fail("expected " + key + " above the previous record's " + detail::describe(*previous) + " (" +
                        detail::record_pointer(previous_index, key) + "), got " + detail::describe(*value) +
                        (order == Order::kIncomparable ? " (a number and a string cannot be ordered)" : ""),
                    detail::record_pointer(index, key), detail::record_id(record));
      }
    }
    previous = value;
    previous_index = index;
  }
  budget.finish();
}

/// "ids ascending" across consecutive pages too (spec §2.2 rule 3): the next page starts above
/// where this one ended.
void ascending_across_pages(const CheckContext& context, const Page& earlier, const Page& later,
                            Findings& findings) {
  const auto before = detail::results_array(earlier);
  const auto after = detail::results_array(later);
  if (!before || !after || before->size() == 0 || after->size() == 0) return;
  const std::string& key = context.order_key;
  const Json first_record = *after->begin();
  const auto last = order_value(detail::last_result(earlier, *before), key);
  const auto first = order_value(first_record, key);
  if (!last || !first) return;  // results_ascending reports records without the key
  if (compare_keys(*last, *first) == Order::kLess) {
    findings.pass("ascending_across_pages");
    return;
  }
  findings.fail({"ascending_across_pages",
                 "expected the page's first " + key + " above the previous page's last " +
                     detail::describe(*last) + " (" + earlier.exchange.url + " " +
                     detail::record_pointer(detail::count_of(*before) - 1, key) + "), got " +
                     detail::describe(*first),
                 later.exchange.url, detail::record_pointer(0, key), detail::record_id(first_record)});
}

/// "fetching a page again returns the same ids" (spec §2.2 rule 3: a stable order; reference §5.1
/// warns that ties in ORDER BY "order" may not be).
void refetch_same_ids(const CheckContext&, const Page& first, const Page& again, Findings& findings) {
  const auto a = detail::results_array(first);
  const auto b = detail::results_array(again);
  if (!a || !b) return;
  // Ids compared as values (null stands for a record without id): 5 and 5.0 are one id, as in Python.
  const auto id_of = [](Json record) {
    const auto id = detail::member(record, "id");
    return id ? detail::to_nlohmann(*id) : nlohmann::json();
  };
  std::string problem, pointer;
  std::optional<std::int64_t> record;
  std::size_t i = 0;
  for (auto x = a->begin(), y = b->begin(); x != a->end() && y != b->end() && problem.empty();
       ++x, ++y, ++i) {
    const nlohmann::json id_a = id_of(*x), id_b = id_of(*y);
    if (id_a != id_b) {
      problem =
          "expected id " + detail::describe(id_a) + " as in the first fetch, got " + detail::describe(id_b);
      pointer = detail::record_pointer(i, "id");
      record = detail::record_id(*y);
    }
  }
  if (problem.empty() && detail::count_of(*a) != detail::count_of(*b))
    problem = "expected the same " + std::to_string(detail::count_of(*a)) +
              " records as the first fetch, got " + std::to_string(detail::count_of(*b));
  if (problem.empty()) {
    findings.pass("refetch_same_ids");
  } else {
    findings.fail({"refetch_same_ids", problem, again.exchange.url, pointer, record});
  }
}

/// "the last page has next null" (spec §4.1 rule 2): an empty page whose next is a link cannot come
/// from DRF (next is null once offset+limit >= count, and a page is empty only past count); following it
/// could go on for ever against a server that claims a huge count, so the walk stops there.
void walk_reaches_end_on_page(WalkState& walk, const Page& page, Findings& findings) {
  if (walk.dead_end)
    findings.fail({"walk_reaches_end",
                   "expected next to be null on an empty page, got a link: "
                   "the walk stops here",
                   page.exchange.url, "/next", std::nullopt});
}

/// "the last page has next null" (spec §4.1 rule 2), reached within the page cap and the byte cap.
void walk_reaches_end(const WalkState& walk, Findings& findings) {
  if (walk.reached_end) {
    findings.pass("walk_reaches_end");
  } else if (walk.byte_cap != 0) {
    findings.fail({"walk_reaches_end",
                   "expected to reach a page with next null within the byte cap (" +
                       std::to_string(walk.byte_cap) + " bytes, --byte-cap), got " +
                       std::to_string(walk.pages) + " pages of " + std::to_string(walk.bytes) +
                       " bytes without one",
                   walk.last_url, "/next", std::nullopt});
  } else if (!walk.stop_reason.empty()) {
    findings.fail({"walk_reaches_end",
                   "expected to reach a page with next null within the page cap (" +
                       std::to_string(walk.page_cap) + " pages, --page-cap), got " + walk.stop_reason +
                       " on page " + std::to_string(walk.pages) + " of the walk: it stops there",
                   walk.last_url, "", std::nullopt});
  } else {
    const std::string pictures =
        walk.pictures == 0 ? "" : " (and " + std::to_string(walk.pictures) + " of their pictures)";
    findings.fail({"walk_reaches_end",
                   "expected to reach a page with next null within the page cap (" +
                       std::to_string(walk.page_cap) +
                       (walk.pictures == 0 ? " pages" : " pages and pictures") + ", --page-cap), got " +
                       std::to_string(walk.pages) + " pages" + pictures +
                       " without one (the cap was reached or a page had no usable next link)",
                   walk.last_url, "/next", std::nullopt});
  }
}

/// "id: unique identifier" (spec §2.1): no id is seen twice while walking.
void walk_no_duplicates(WalkState& walk, const Page& page, Findings& findings) {
  const auto results = detail::result_records(page);
  if (!results) return;
  detail::FailureBudget budget(findings, "walk_no_duplicates", page.exchange.url);
  std::size_t i = 0;
  for (const RecordMembers& record : *results) {
    const auto id = detail::record_id(record);
    ++i;
    if (!id) continue;  // record_schema reports records without an integer id
    if (walk.seen_ids.insert(*id)) {
      budget.pass();
    } else {
      ++walk.duplicates;
      budget.fail("expected each id once in the walk, got id " + std::to_string(*id) + " again",
                  detail::record_pointer(i - 1, "id"), id);
    }
  }
  budget.finish();
}

/// "count: total number of image records" (spec §2.2): a complete walk sees count records. An
/// unfinished walk cannot be counted.
void walk_count_matches(const WalkState& walk, Findings& findings) {
  if (!walk.reached_end || !walk.first_count) return;
  if (walk.records_seen == *walk.first_count) {
    findings.pass("walk_count_matches");
  } else {
    findings.fail({"walk_count_matches",
                   "expected the walk to see count = " + std::to_string(*walk.first_count) + " records (" +
                       walk.first_url + "), got " + std::to_string(walk.records_seen) + " over " +
                       std::to_string(walk.pages) + " pages",
                   walk.last_url, "", std::nullopt});
  }
}

/// "count: total number of image records" (spec §2.2) is the same on every page. Every page of the
/// quick plan asks the whole collection (format and probes filter nothing), and so does every page of
/// a walk, so a count that drifts shows on either.
void count_stable(const CheckContext&, const FirstPage& first, const Page& page, Findings& findings) {
  const auto body = detail::body_object(page);
  if (!body) return;
  const auto count = detail::as_count(detail::member(*body, "count"));
  if (!count) return;
  if (*count == first.count) {
    findings.pass("count_stable");
  } else {
    findings.fail({"count_stable",
                   "expected count " + std::to_string(first.count) + " as on " + std::string(first.name) +
                       " (" + std::string(first.url) + "), got " + std::to_string(*count),
                   page.exchange.url, "/count", std::nullopt});
  }
}

// Why the walk cannot follow the page's next, or "" when it can (or the page ends the walk).
std::string stop_reason_of(const Page& page) {
  const HttpExchange& ex = page.exchange;
  if (ex.status == 0) return "no answer (" + detail::quote(ex.error) + ")";
  if (ex.status != 200) return "status " + std::to_string(ex.status);
  if (!page.json || !page.json->is_object())
    return "a page without a JSON object to take next from" +
           (page.json_error.empty() ? std::string() : " (" + page.json_error + ")");
  const auto next = detail::member(*page.json, "next");
  if (!next) return "a page without next";
  if (next->is_null() || detail::next_link_query(page)) return "";
  return "a page whose next is not an absolute URL: " + detail::describe(*next);
}

// Whether the page is empty yet its next is a link (any status: the body is what the walk follows).
bool empty_with_next(const Page& page) {
  if (!page.json) return false;
  const auto results = detail::member(*page.json, "results");
  const auto next = detail::member(*page.json, "next");
  return results && results->is_array() && results->get_array().value_unsafe().size() == 0 && next &&
         !next->is_null();
}

constexpr Rule kWalkRules[] = {
    {"results_ascending", "ordering", "ids (or --order-key) strictly ascending within a page",
     "spec §2.2 rule 3", EveryPage{results_ascending}},
    {"ascending_across_pages", "ordering", "the last id of a page is below the first id of the next page",
     "spec §2.2 rule 3", PagePair{PlanStep::next_page, ascending_across_pages}},
    {"walk_reaches_end", "walk",
     "following next from the first page reaches next == null within the page cap", "spec §2.2, §4.1 rule 2",
     WalkPages{.page = walk_reaches_end_on_page, .end = walk_reaches_end}},
    {"walk_no_duplicates", "walk", "no id is seen twice while walking the collection",
     "spec §2.1 (id: unique identifier)", WalkPages{.page = walk_no_duplicates}},
    {"walk_count_matches", "walk", "records seen in a complete walk == count of the first page",
     "spec §2.2 (count: total number of records)", WalkPages{.end = walk_count_matches}},
    {"count_stable", "walk", "every page of the quick plan and of a walk reports the first page's count",
     "spec §2.2 (count: total number of records); reference §5.3", AgainstFirstPage{count_stable}},
    {"refetch_same_ids", "walk", "fetching a page again returns the same ids in the same order",
     "spec §2.2 rule 3; reference §5.1", PagePair{PlanStep::refetch, refetch_same_ids}},
};

}  // namespace

std::span<const Rule> detail::walk_rules() {
  return kWalkRules;
}

WalkChecker::WalkChecker(const CheckContext& context) : state_(context) {
  for (const Rule& rule : all_rules())
    if (const auto* walk = std::get_if<WalkPages>(&rule.check); walk != nullptr && context.runs(rule.name)) {
      if (walk->page) page_rules_.push_back(walk->page);
      if (walk->end) end_rules_.push_back(walk->end);
    }
}

bool WalkChecker::add(const Page& page, Findings& findings) {
  WalkState& walk = state_;
  ++walk.pages;
  if (walk.pages == 1) walk.first_url = page.exchange.url;
  walk.last_url = page.exchange.url;
  const auto body = detail::body_object(page);
  walk.count = body ? detail::as_count(detail::member(*body, "count")) : std::nullopt;
  if (walk.count) walk.max_count = std::max(walk.max_count.value_or(0), *walk.count);
  if (walk.count) walk.min_count = std::min(walk.min_count.value_or(*walk.count), *walk.count);
  if (walk.count && !walk.first_count)
    walk.seen_ids.reserve(static_cast<std::size_t>(std::min<std::uint64_t>(*walk.count, 1U << 22)));
  if (const auto results = detail::results_array(page)) walk.records_seen += detail::count_of(*results);
  walk.dead_end = empty_with_next(page);
  walk.reached_end = detail::next_is_null(page);
  walk.stop_reason = walk.reached_end || walk.dead_end ? std::string() : stop_reason_of(page);
  for (const auto rule : page_rules_)
    rule(walk, page, findings);
  if (walk.first_count)
    check_against_first(walk.context, {*walk.first_count, walk.first_url, "the walk's first page"}, page,
                        findings);
  if (!walk.first_count) walk.first_count = walk.count;
  return !walk.reached_end && !walk.dead_end;
}

namespace {

// Failures a rule has among the findings, reported and left out.
std::uint64_t failures_of(const Findings& found, std::string_view rule) {
  return found.left_out(rule) +
         static_cast<std::uint64_t>(std::count_if(found.failures().begin(), found.failures().end(),
                                                  [&](const Failure& f) { return f.rule == rule; }));
}

// The warnings that replace the excused failures: the counts, the records seen and those seen twice.
void note_writes(const WalkState& walk, std::uint64_t count_now, std::uint64_t distinct,
                 std::uint64_t boundaries, Findings& into) {
  const bool grew = count_now > *walk.first_count;
  const std::uint64_t extreme = grew ? *walk.max_count : *walk.min_count;
  into.note("count_stable",
            "warning: the count " + std::string(grew ? "grew" : "fell") + " from " +
                std::to_string(*walk.first_count) + " to " + std::to_string(extreme) +
                " while the walk went on, and the first page asked again at its end says " +
                std::to_string(count_now) + ": records were " + (grew ? "written" : "deleted") +
                " meanwhile, not miscounted; each page was judged by its own count, and the walk saw " +
                std::to_string(distinct) + " distinct records (" + std::to_string(walk.duplicates) +
                " seen twice) of the " + std::to_string(count_now) + " at its end");
  into.note("walk_count_matches", "warning: the walk saw " + std::to_string(distinct) +
                                      " records of a count that " + (grew ? "grew" : "fell") + " from " +
                                      std::to_string(*walk.first_count) + " to " + std::to_string(count_now) +
                                      " while it went on (see count_stable)");
  if (walk.duplicates > 0)
    into.note("walk_no_duplicates",
              "warning: " + std::to_string(walk.duplicates) +
                  " records seen twice, as "
                  "records written ahead of the walk push records across a page boundary (see count_stable)");
  if (boundaries > 0)
    into.note("ascending_across_pages",
              "warning: " + std::to_string(boundaries) +
                  " pages began at or below the page before's last record, each with a record seen twice: "
                  "records put ahead of the walk while it went on (see count_stable)");
}

}  // namespace

bool settle_writes_during_walk(const WalkState& walk, std::optional<std::uint64_t> count_now,
                               const Findings& walk_found, Findings& into, std::uint64_t pages_in_flight) {
  static const std::vector<std::string_view> kExplained = {"count_stable", "walk_count_matches",
                                                           "walk_no_duplicates", "ascending_across_pages"};
  const std::uint64_t distinct = walk.records_seen - std::min(walk.duplicates, walk.records_seen);
  // Writes (records appended as uploads are, or put first) raise the count for good: the first page asked
  // again keeps at least the highest count a page gave (pages fetched ahead in parallel may come in another
  // order than they were answered, so the counts between are not required to rise in page order), the
  // records seen twice are at most the records written (times the pages in flight), and the distinct ones
  // lie between the count the walk began with (less those a parallel walk may miss) and the count at its
  // end. A paginator that miscounts on some pages (the count asked again is the old one), or repeats
  // records without a write to explain them, does not pass as one.
  const bool grew = walk.reached_end && walk.first_count && walk.max_count && count_now &&
                    *walk.max_count > *walk.first_count && *count_now >= *walk.max_count && walk.min_count &&
                    *walk.min_count >= *walk.first_count;
  // A next page that does not start above the page before's last record: a record written ahead of the walk
  // pushed that one across the boundary, so it is seen twice; more such boundaries than records seen twice
  // is a paginator out of order.
  const std::uint64_t boundaries = failures_of(walk_found, "ascending_across_pages");
  // Written records: each may push up to pages_in_flight records across pages fetched ahead, seen twice or
  // (its page fetched before the one ahead of it) not at all; followed one page at a time, none is missed.
  const std::uint64_t written = grew ? *count_now - *walk.first_count : 0;
  const std::uint64_t flight = std::max<std::uint64_t>(pages_in_flight, 1);
  // Deletes lower the count for good: records behind a deleted one move back across a page boundary, so
  // each delete may cost up to pages_in_flight records not seen (or, fetched ahead, seen twice).
  const bool fell = walk.reached_end && walk.first_count && walk.min_count && count_now && walk.max_count &&
                    *walk.max_count <= *walk.first_count && *walk.min_count < *walk.first_count &&
                    *count_now <= *walk.min_count;
  const std::uint64_t deleted = fell ? *walk.first_count - *count_now : 0;
  const bool explained =
      (grew && walk.duplicates <= written * flight &&
       distinct + written * (flight - 1) >= *walk.first_count && distinct <= *count_now &&
       boundaries <= walk.duplicates) ||
      (fell && walk.duplicates <= deleted * (flight - 1) && distinct + deleted * flight >= *count_now &&
       distinct <= *walk.first_count && boundaries <= walk.duplicates);
  const bool any = std::any_of(kExplained.begin(), kExplained.end(),
                               [&](std::string_view rule) { return failures_of(walk_found, rule) > 0; });
  if (!explained || !any) {
    into.merge(walk_found);
    return false;
  }
  into.merge_excusing(walk_found, kExplained);
  note_writes(walk, *count_now, distinct, boundaries, into);
  return true;
}

bool settle_quick_counts(const std::vector<std::uint64_t>& counts, std::optional<std::uint64_t> count_now,
                         const Findings& found, Findings& into) {
  if (counts.empty() || !count_now || failures_of(found, "count_stable") == 0) {
    into.merge(found);
    return false;
  }
  // One way: every count at least (or at most) the one before it, and the first page asked again at the end
  // keeps the last (a write stays; a paginator that miscounted a page goes back).
  const bool rising = std::is_sorted(counts.begin(), counts.end()) && *count_now >= counts.back();
  const bool falling = std::is_sorted(counts.rbegin(), counts.rend()) && *count_now <= counts.back();
  if (!rising && !falling) {
    into.merge(found);
    return false;
  }
  into.merge_excusing(found, {"count_stable"});
  into.note("count_stable", "warning: the count " + std::string(rising ? "grew" : "fell") + " from " +
                                std::to_string(counts.front()) + " to " + std::to_string(counts.back()) +
                                " one way while the quick plan went on, and the first page asked again at "
                                "its end says " +
                                std::to_string(*count_now) + ": records were " +
                                (rising ? "written" : "deleted") +
                                " meanwhile, not miscounted; each page was judged by its own count");
  return true;
}

bool IdSet::insert(std::int64_t id) {
  // Whatever others_ holds was below rising_.back() when it came, so an id above it is in neither.
  if (rising_.empty() || id > rising_.back()) {
    rising_.push_back(id);
    return true;
  }
  if (std::binary_search(rising_.begin(), rising_.end(), id)) return false;
  return others_.insert(id).second;
}

void WalkChecker::finish(std::uint64_t page_cap, Findings& findings) {
  state_.page_cap = page_cap;
  end(findings);
}

void WalkChecker::finish_at_byte_cap(std::uint64_t byte_cap, std::uint64_t bytes, Findings& findings) {
  state_.byte_cap = byte_cap;
  state_.bytes = bytes;
  end(findings);
}

void WalkChecker::end(Findings& findings) {
  for (const auto rule : end_rules_)
    rule(state_, findings);
}

}  // namespace entimg::contract
