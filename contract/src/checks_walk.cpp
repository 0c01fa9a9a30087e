// Ordering within and across pages, and the walk along next over the whole collection.
#include <algorithm>

#include "check_support.hpp"
#include "entimg/contract/checks.hpp"

namespace entimg::contract {
namespace {

using detail::Json;

enum class Order { kLess, kEqual, kGreater, kIncomparable };

template <typename T>
Order order_of(const T& a, const T& b) {
  return a < b ? Order::kLess : (b < a ? Order::kGreater : Order::kEqual);
}

// Numbers by value (exactly for integers of either sign, as doubles otherwise), strings bytewise.
Order compare_keys(const Json& a, const Json& b) {
  if (a.is_number_integer() && b.is_number_integer()) {
    const bool a_negative = !a.is_number_unsigned() && a.get<std::int64_t>() < 0;
    const bool b_negative = !b.is_number_unsigned() && b.get<std::int64_t>() < 0;
    if (a_negative || b_negative) {
      if (!b_negative) return Order::kLess;
      if (!a_negative) return Order::kGreater;
      return order_of(a.get<std::int64_t>(), b.get<std::int64_t>());
    }
    return order_of(a.get<std::uint64_t>(), b.get<std::uint64_t>());
  }
  if (a.is_number() && b.is_number()) return order_of(a.get<double>(), b.get<double>());
  if (a.is_string() && b.is_string())
    return order_of(a.get_ref<const std::string&>(), b.get_ref<const std::string&>());
  return Order::kIncomparable;
}

// The record's ordering value when it is a number or a string.
const Json* order_value(const Json& record, const std::string& key) {
  const Json* value = detail::member(record, key);
  return value != nullptr && (value->is_number() || value->is_string()) ? value : nullptr;
}

}  // namespace

/// "Records in results are in ascending order of id" (spec §2.2 rule 3), strictly: ids are unique;
/// --order-key names another (unique) field.
void results_ascending(const CheckContext& context, const Page& page, Findings& findings) {
  const Json* results = detail::results_array(page);
  if (results == nullptr) return;
  const std::string& key = context.order_key;
  detail::FailureBudget budget(findings, "results_ascending", page.exchange.url);
  const Json* previous = nullptr;
  std::size_t previous_index = 0;
  for (std::size_t i = 0; i < results->size(); ++i) {
    const Json& record = (*results)[i];
    const Json* value = order_value(record, key);
    if (value == nullptr) {
      const Json* raw = detail::member(record, key);
      budget.fail("expected the record to have " + key + " (a number or a string) to order by, got " +
                      (raw == nullptr ? std::string(record.is_object() ? "none" : detail::describe(record))
                                      : detail::describe(*raw)),
                  detail::record_pointer(i, key), detail::record_id(record));
      previous = nullptr;
      continue;
    }
    if (previous != nullptr) {
      const Order order = compare_keys(*previous, *value);
      if (order == Order::kLess) {
        budget.pass();
      } else {
        budget.fail("expected " + key + " above the previous record's " + detail::describe(*previous) + " (" +
                        detail::record_pointer(previous_index, key) + "), got " + detail::describe(*value) +
                        (order == Order::kIncomparable ? " (a number and a string cannot be ordered)" : ""),
                    detail::record_pointer(i, key), detail::record_id(record));
      }
    }
    previous = value;
    previous_index = i;
  }
  budget.finish();
}

/// "ids ascending" across consecutive pages too (spec §2.2 rule 3): the next page starts above
/// where this one ended.
void ascending_across_pages(const CheckContext& context, const Page& earlier, const Page& later,
                            Findings& findings) {
  const Json* before = detail::results_array(earlier);
  const Json* after = detail::results_array(later);
  if (before == nullptr || after == nullptr || before->empty() || after->empty()) return;
  const std::string& key = context.order_key;
  const Json* last = order_value(before->back(), key);
  const Json* first = order_value(after->front(), key);
  if (last == nullptr || first == nullptr) return;  // results_ascending reports records without the key
  if (compare_keys(*last, *first) == Order::kLess) {
    findings.pass("ascending_across_pages");
    return;
  }
  findings.fail({"ascending_across_pages",
                 "expected the page's first " + key + " above the previous page's last " +
                     detail::describe(*last) + " (" + earlier.exchange.url + " " +
                     detail::record_pointer(before->size() - 1, key) + "), got " + detail::describe(*first),
                 later.exchange.url, detail::record_pointer(0, key), detail::record_id(after->front())});
}

/// "fetching a page again returns the same ids" (spec §2.2 rule 3: a stable order; reference §5.1
/// warns that ties in ORDER BY "order" may not be).
void refetch_same_ids(const CheckContext&, const Page& first, const Page& again, Findings& findings) {
  const Json* a = detail::results_array(first);
  const Json* b = detail::results_array(again);
  if (a == nullptr || b == nullptr) return;
  static const Json kMissing;  // null stands for a record without id
  const auto id_at = [](const Json& results, std::size_t i) -> const Json& {
    const Json* id = detail::member(results[i], "id");
    return id == nullptr ? kMissing : *id;
  };
  std::string problem, pointer;
  std::optional<std::int64_t> record;
  for (std::size_t i = 0; i < a->size() && i < b->size() && problem.empty(); ++i) {
    if (id_at(*a, i) != id_at(*b, i)) {
      problem = "expected id " + detail::describe(id_at(*a, i)) + " as in the first fetch, got " +
                detail::describe(id_at(*b, i));
      pointer = detail::record_pointer(i, "id");
      record = detail::record_id((*b)[i]);
    }
  }
  if (problem.empty() && a->size() != b->size())
    problem = "expected the same " + std::to_string(a->size()) + " records as the first fetch, got " +
              std::to_string(b->size());
  if (problem.empty()) {
    findings.pass("refetch_same_ids");
  } else {
    findings.fail({"refetch_same_ids", problem, again.exchange.url, pointer, record});
  }
}

/// "count: total number of image records" (spec §2.2) stays the same while walking; every id is
/// unique (spec §2.1), so none is seen twice.
void WalkChecker::add(const Page& page, Findings& findings) {
  ++pages_;
  if (pages_ == 1) first_url_ = page.exchange.url;
  last_url_ = page.exchange.url;
  const Json* body = detail::body_object(page);
  if (body == nullptr) return;
  if (const auto count = detail::as_count(detail::member(*body, "count"))) {
    if (!first_count_) {
      first_count_ = count;
      seen_ids_.reserve(static_cast<std::size_t>(std::min<std::uint64_t>(*count, 1U << 22)));
    } else if (*count == *first_count_) {
      findings.pass("count_stable");
    } else {
      findings.fail({"count_stable",
                     "expected count " + std::to_string(*first_count_) + " as on the walk's first page (" +
                         first_url_ + "), got " + std::to_string(*count),
                     page.exchange.url, "/count", std::nullopt});
    }
  }
  const Json* results = detail::results_array(page);
  if (results == nullptr) return;
  records_seen_ += results->size();
  detail::FailureBudget budget(findings, "walk_no_duplicates", page.exchange.url);
  for (std::size_t i = 0; i < results->size(); ++i) {
    const auto id = detail::record_id((*results)[i]);
    if (!id) continue;  // record_schema reports records without an integer id
    if (seen_ids_.insert(*id).second) {
      budget.pass();
    } else {
      budget.fail("expected each id once in the walk, got id " + std::to_string(*id) + " again",
                  detail::record_pointer(i, "id"), id);
    }
  }
  budget.finish();
}

/// "the last page has next null" (spec §4.1 rule 2) and is reached within the page cap; a complete
/// walk sees count records (spec §2.2).
void WalkChecker::finish(bool reached_end, std::uint64_t page_cap, Findings& findings) {
  if (reached_end) {
    findings.pass("walk_reaches_end");
  } else {
    findings.fail({"walk_reaches_end",
                   "expected to reach a page with next null within the page cap (" +
                       std::to_string(page_cap) + " pages), got " + std::to_string(pages_) +
                       " pages without one (the cap was reached or a page had no usable next link)",
                   last_url_, "/next", std::nullopt});
    return;  // an unfinished walk cannot be counted
  }
  if (!first_count_) return;
  if (records_seen_ == *first_count_) {
    findings.pass("walk_count_matches");
  } else {
    findings.fail({"walk_count_matches",
                   "expected the walk to see count = " + std::to_string(*first_count_) + " records (" +
                       first_url_ + "), got " + std::to_string(records_seen_) + " over " +
                       std::to_string(pages_) + " pages",
                   last_url_, "", std::nullopt});
  }
}

}  // namespace entimg::contract
