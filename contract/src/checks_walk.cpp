// Ordering within and across pages, and the walk along next over the whole collection.
#include <algorithm>

#include "check_support.hpp"
#include "entimg/contract/checks.hpp"
#include "json_parse.hpp"

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

// The record's ordering value when it is a number or a string.
std::optional<Json> order_value(Json record, const std::string& key) {
  const auto value = detail::member(record, key);
  return value && (value->is_number() || value->is_string()) ? value : std::nullopt;
}

}  // namespace

/// "Records in results are in ascending order of id" (spec §2.2 rule 3), strictly: ids are unique;
/// --order-key names another (unique) field.
void results_ascending(const CheckContext& context, const Page& page, Findings& findings) {
  const auto results = detail::results_array(page);
  if (!results) return;
  const std::string& key = context.order_key;
  detail::FailureBudget budget(findings, "results_ascending", page.exchange.url);
  std::optional<Json> previous;
  std::size_t previous_index = 0;
  std::size_t i = 0;
  for (const Json record : *results) {
    const std::size_t index = i++;
    const auto value = order_value(record, key);
    if (!value) {
      const auto raw = detail::member(record, key);
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
  const auto last = order_value(detail::last_item(*before), key);
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

namespace {

void judge_count(std::uint64_t expected, const std::string& where, std::uint64_t count,
                 const std::string& url, Findings& findings) {
  if (count == expected) {
    findings.pass("count_stable");
  } else {
    findings.fail(
        {"count_stable",
         "expected count " + std::to_string(expected) + " as on " + where + ", got " + std::to_string(count),
         url, "/count", std::nullopt});
  }
}

}  // namespace

// Every page of the quick plan asks the whole collection (format and probes filter nothing), so a
// count that drifts on one of them is seen without a walk.
void count_stable(const CheckContext&, std::uint64_t first_count, const std::string& first_url,
                  const Page& page, Findings& findings) {
  const auto body = detail::body_object(page);
  if (!body) return;
  if (const auto count = detail::as_count(detail::member(*body, "count")))
    judge_count(first_count, "the first page (" + first_url + ")", *count, page.exchange.url, findings);
}

/// "count: total number of image records" (spec §2.2) stays the same while walking; every id is
/// unique (spec §2.1), so none is seen twice.
void WalkChecker::add(const Page& page, Findings& findings) {
  ++pages_;
  if (pages_ == 1) first_url_ = page.exchange.url;
  last_url_ = page.exchange.url;
  const auto body = detail::body_object(page);
  if (!body) return;
  if (const auto count = detail::as_count(detail::member(*body, "count"))) {
    if (!first_count_) {
      first_count_ = count;
      seen_ids_.reserve(static_cast<std::size_t>(std::min<std::uint64_t>(*count, 1U << 22)));
    } else {
      judge_count(*first_count_, "the walk's first page (" + first_url_ + ")", *count, page.exchange.url,
                  findings);
    }
  }
  const auto results = detail::results_array(page);
  if (!results) return;
  records_seen_ += detail::count_of(*results);
  detail::FailureBudget budget(findings, "walk_no_duplicates", page.exchange.url);
  std::size_t i = 0;
  for (const Json record : *results) {
    const auto id = detail::record_id(record);
    ++i;
    if (!id) continue;  // record_schema reports records without an integer id
    if (seen_ids_.insert(*id).second) {
      budget.pass();
    } else {
      budget.fail("expected each id once in the walk, got id " + std::to_string(*id) + " again",
                  detail::record_pointer(i - 1, "id"), id);
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
                       std::to_string(page_cap) + " pages, --page-cap), got " + std::to_string(pages_) +
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

void WalkChecker::finish_at_byte_cap(std::uint64_t byte_cap, std::uint64_t bytes, Findings& findings) {
  findings.fail({"walk_reaches_end",
                 "expected to reach a page with next null within the byte cap (" + std::to_string(byte_cap) +
                     " bytes, --byte-cap), got " + std::to_string(pages_) + " pages of " +
                     std::to_string(bytes) + " bytes without one",
                 last_url_, "/next", std::nullopt});
}

}  // namespace entimg::contract
