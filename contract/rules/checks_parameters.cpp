// Rules on what a deployment does with odd parameters: limit and offset DRF replaces, format=json.
#include <algorithm>

#include "checks_links.hpp"
#include "decimal.hpp"
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
using NJson = nlohmann::json;
using detail::first_difference;
using detail::quote;
using ParamList = std::vector<std::pair<std::string, std::string>>;

std::string sent_text(const Page& page) {
  std::string out;
  for (const auto& [k, v] : page.sent)
    out += (out.empty() ? "" : "&") + k + "=" + v;
  return out.empty() ? "no parameters" : out;
}

// A link reduced to what format_json_same compares: origin, decoded path, parameters but format.
std::string comparable_link(std::string_view url) {
  const detail::Link link = detail::parse_link(url);
  std::string out =
      detail::normalised_origin(url).value_or("?") + common::percent_decode(link.parts.path, false);
  ParamList params;
  for (const auto& [k, v] : link.params)
    if (k != "format") params.emplace_back(k, v);
  std::sort(params.begin(), params.end());
  for (const auto& [k, v] : params)
    out += "\n" + k + "=" + v;
  return out;
}

/// "limit=abc|0|-1|huge, offset=abc|-1|beyond count: never a 5xx, DRF's effective limit and offset"
/// (reference §2.1 / DRF pagination.py _positive_int: bad values fall back to 12 and 0 with a 200).
void parameter_probe(const CheckContext&, const Page& probe, Findings& findings) {
  const HttpExchange& ex = probe.exchange;
  const std::string sent = "for " + sent_text(probe) + ": ";
  detail::FailureBudget budget(findings, "parameter_probe", ex.url);
  const std::string window =
      "limit " + std::to_string(probe.effective_limit) + ", offset " + std::to_string(probe.effective_offset);
  if (ex.status != 200) {
    const std::string got = ex.status == 0     ? "no answer: " + detail::quote(ex.error)
                            : ex.status >= 500 ? "status " + std::to_string(ex.status) + " (a server error)"
                                               : "status " + std::to_string(ex.status);
    budget.fail(sent + "expected status 200 with DRF's window (" + window + "), got " + got);
    budget.finish();
    return;
  }
  const auto body = detail::body_object(probe);
  const auto results = detail::results_array(probe);
  if (!body || !results) {
    budget.fail(sent + "expected a page (a JSON object with a results array), got " +
                (probe.json ? detail::describe(*probe.json) : probe.json_error));
    budget.finish();
    return;
  }
  if (const auto count = detail::as_count(detail::member(*body, "count"))) {
    const std::uint64_t expected = *count > probe.effective_offset
                                       ? std::min(*count - probe.effective_offset, probe.effective_limit)
                                       : 0;
    if (detail::count_of(*results) == expected) {
      budget.pass();
    } else {
      budget.fail(sent + "expected " + std::to_string(expected) + " records (DRF's window: " + window +
                      ", count " + std::to_string(*count) + "), got " +
                      std::to_string(detail::count_of(*results)),
                  "/results");
    }
  }
  detail::check_link_limits(*body, detail::decimal(probe.effective_limit), "DRF's effective limit", budget);
  if (const auto next = detail::as_string(detail::member(*body, "next"))) {
    const auto offsets = detail::values_of(detail::parse_link(*next).params, "offset");
    const std::string expected = detail::add_decimal(probe.effective_offset, probe.effective_limit);
    if (offsets.size() == 1 && detail::is_decimal_equal(offsets[0], expected)) {
      budget.pass();
    } else {
      budget.fail(sent + "expected next to carry offset=" + expected + " (DRF's window: " + window +
                      "), got " +
                      (offsets.empty() ? std::string("no offset") : "offset=" + detail::quote(offsets[0])),
                  "/next");
    }
  }
  budget.finish();
}

// The keys of two objects, a's first, each once.
std::vector<std::string_view> keys_of_both(const simdjson::dom::element& a, const simdjson::dom::element& b) {
  std::vector<std::string_view> keys;
  // Copies: value_unsafe() of a temporary result refers into it, so a range-for over it would dangle
  // (it did, in the release build).
  const simdjson::dom::object a_members = a.get_object().value_unsafe();
  const simdjson::dom::object b_members = b.get_object().value_unsafe();
  for (const auto field : a_members)
    if (std::find(keys.begin(), keys.end(), field.key) == keys.end()) keys.push_back(field.key);
  for (const auto field : b_members)
    if (std::find(keys.begin(), keys.end(), field.key) == keys.end()) keys.push_back(field.key);
  return keys;
}

// The first difference of two values at `at` (moved to the record that differs), or "" when they are the
// same. Compared as nlohmann values (equality that ignores key order), one record at a time: two whole
// pages near the body cap converted at once would double what the run holds.
std::string first_difference_of(const simdjson::dom::element& x, const simdjson::dom::element& y,
                                std::string& at) {
  if (!x.is_array() || !y.is_array()) {
    const NJson xv = detail::to_nlohmann(x), yv = detail::to_nlohmann(y);
    return xv == yv ? std::string() : first_difference(xv, yv, at);
  }
  const auto xs = x.get_array().value_unsafe(), ys = y.get_array().value_unsafe();
  if (detail::count_of(xs) != detail::count_of(ys)) return detail::describe(x) + " vs " + detail::describe(y);
  const std::string pointer = at;
  std::size_t i = 0;
  for (auto xi = xs.begin(), yi = ys.begin(); xi != xs.end(); ++xi, ++yi, ++i) {
    const NJson xv = detail::to_nlohmann(*xi), yv = detail::to_nlohmann(*yi);
    if (xv == yv) continue;
    at = pointer + "/" + std::to_string(i);
    return first_difference(xv, yv, at);
  }
  return {};
}

/// "format=json and no format give the same JSON" (spec §4.1 format; reference §3.2): the links
/// may differ by the format parameter alone.
void format_json_same(const CheckContext&, const Page& with_format, const Page& without_format,
                      Findings& findings) {
  const auto a = detail::body_object(with_format);
  const auto b = detail::body_object(without_format);
  if (!a || !b) return;
  detail::FailureBudget budget(findings, "format_json_same", with_format.exchange.url);
  const std::string versus = " (compared with " + without_format.exchange.url + ")";
  for (const std::string_view key : keys_of_both(*a, *b)) {
    const auto x = detail::member(*a, key);
    const auto y = detail::member(*b, key);
    const std::string pointer = "/" + detail::pointer_token(key);
    if (!x || !y) {
      budget.fail("expected key " + quote(key) + " in both answers, got it only " +
                      (x ? std::string("with format=json") : std::string("without format")) + versus,
                  pointer);
      continue;
    }
    // Two counts are count_stable's, which weighs records written between the two requests.
    if (key == "count" && detail::as_count(x) && detail::as_count(y)) {
      budget.pass();
      continue;
    }
    const auto x_link = detail::as_string(x), y_link = detail::as_string(y);
    if ((key == "next" || key == "previous") && x_link && y_link) {
      if (comparable_link(*x_link) == comparable_link(*y_link)) {
        budget.pass();
      } else {
        budget.fail("expected " + std::string(key) + " to differ at most by format, got " + quote(*x_link) +
                        " vs " + quote(*y_link) + versus,
                    pointer);
      }
      continue;
    }
    std::string at = pointer;
    const std::string got = first_difference_of(*x, *y, at);
    if (got.empty())
      budget.pass();
    else
      budget.fail(
          "expected the same " + std::string(key) + " with format=json and without, got " + got + versus, at);
  }
  budget.finish();
}

constexpr Rule kParameterRules[] = {
    {"parameter_probe", "parameters",
     "limit=abc|0|-1|huge, offset=abc|-1|beyond count: 200, never 5xx, with DRF's effective limit and "
     "offset",
     "reference §2.1 / DRF pagination.py (_positive_int, get_limit, get_offset)",
     PlannedPage{PlanStep::parameter_probe, parameter_probe}},
    {"format_json_same", "parameters",
     "format=json and no format give the same JSON (links aside from format)",
     "spec §4.1 (format); reference §3.2", PagePair{PlanStep::format_json, format_json_same}},
};

}  // namespace

std::span<const Rule> detail::parameter_rules() {
  return kParameterRules;
}

}  // namespace entimg::contract
