// The monitor's metrics as Prometheus reads them (exposition.cpp, monitor_state.cpp) and its --interval
// durations; its command line is app/tests/cli_test.cpp's. The monitor end to end, scraped by a real
// Prometheus: blackbox/monitor_prometheus.py.
#include <cmath>

#include <catch2/catch.hpp>

#include "entimg/contract/monitor.hpp"
#include "exposition.hpp"

using namespace entimg::contract;
using namespace std::chrono_literals;

namespace {

RunReport report_with(std::optional<std::uint64_t> count, bool fail_first_rule) {
  RunReport report;
  report.base_url = "http://127.0.0.1:8000";
  report.count = count;
  report.duration = 1500ms;
  report.requests = 20;
  for (const Rule& rule : all_rules()) {
    RuleOutcome outcome;
    outcome.rule = &rule;
    outcome.checked = 3;
    report.rules.push_back(outcome);
  }
  if (fail_first_rule) {
    report.rules[0].failures.push_back({std::string(all_rules()[0].name), "expected 1, got 2", "", "", {}});
    report.rules[0].failures_found = 250;  // past the kept ones
  }
  return report;
}

// The value of the sample line that starts with `series` ("name{labels}"), or NaN when there is none.
double value_of(const std::string& text, const std::string& series) {
  const auto at = text.find("\n" + series + " ");
  if (at == std::string::npos) return std::nan("");
  return std::stod(text.substr(at + series.size() + 2));
}

}  // namespace

TEST_CASE("exposition: HELP and TYPE before the samples, label values escaped", "[monitor]") {
  detail::Exposition out;
  out.family("entimg_contract_x", "a help with \\ and\na line feed; \"quotes\" stay", "gauge");
  out.sample("entimg_contract_x", {{"rule", "a\"b\\c\nd"}, {"other", "plain"}}, 1.5);
  out.sample("entimg_contract_x", 0);
  CHECK(out.text() ==
        "# HELP entimg_contract_x a help with \\\\ and\\na line feed; \"quotes\" stay\n"
        "# TYPE entimg_contract_x gauge\n"
        "entimg_contract_x{rule=\"a\\\"b\\\\c\\nd\",other=\"plain\"} 1.5\n"
        "entimg_contract_x 0\n");
  CHECK(detail::format_value(std::numeric_limits<double>::infinity()) == "+Inf");
  CHECK(detail::format_value(-std::numeric_limits<double>::infinity()) == "-Inf");
  CHECK(detail::format_value(std::nan("")) == "NaN");
  CHECK(detail::format_value(1e21) == "1e+21");
  CHECK(detail::format_value(0.1) == "0.1");
}

TEST_CASE("exposition: a histogram's buckets are cumulative and end at +Inf = _count", "[monitor]") {
  detail::Histogram h({0.1, 1, 10});
  for (const double v : {0.05, 0.1, 0.5, 2.0, 20.0, 30.0})
    h.observe(v);
  detail::Exposition out;
  out.histogram("t_seconds", "time", h);
  CHECK(out.text() ==
        "# HELP t_seconds time\n# TYPE t_seconds histogram\n"
        "t_seconds_bucket{le=\"0.1\"} 2\n"  // 0.1 itself falls in le="0.1"
        "t_seconds_bucket{le=\"1\"} 3\n"
        "t_seconds_bucket{le=\"10\"} 4\n"
        "t_seconds_bucket{le=\"+Inf\"} 6\n"
        "t_seconds_sum 52.65\n"
        "t_seconds_count 6\n");
}

TEST_CASE("monitor metrics: runs, rules, count and its change, latency", "[monitor]") {
  MonitorState state;
  const std::string before = state.metrics();
  CHECK(value_of(before, "entimg_contract_runs_total{result=\"pass\"}") == 0);
  CHECK(before.find("entimg_contract_up") == std::string::npos);  // nothing known before a run
  CHECK_FALSE(state.last_report("html"));

  RunContext context;
  context.started_ms = 1700000000500;
  state.record_run(report_with(300, false), context);
  HttpExchange answer;
  answer.elapsed = 30ms;
  state.observe_request(answer);
  answer.attempts = 0;  // never sent: not timed
  state.observe_request(answer);
  state.record_run(report_with(296, true), context);

  const std::string text = state.metrics();
  CHECK(value_of(text, "entimg_contract_up{base_url=\"http://127.0.0.1:8000\"}") == 1);
  CHECK(text.find("entimg_contract_last_run_failure") == std::string::npos);  // only while it cannot check
  CHECK(value_of(text, "entimg_contract_runs_total{result=\"pass\"}") == 1);
  CHECK(value_of(text, "entimg_contract_runs_total{result=\"fail\"}") == 1);
  CHECK(value_of(text, "entimg_contract_last_run_timestamp_seconds") == 1700000000.5);
  CHECK(value_of(text, "entimg_contract_last_run_duration_seconds") == 1.5);
  const std::string first(all_rules()[0].name), second(all_rules()[1].name);
  CHECK(value_of(text, "entimg_contract_rule_failed{rule=\"" + first + "\"}") == 1);
  CHECK(value_of(text, "entimg_contract_rule_passed{rule=\"" + first + "\"}") == 0);
  CHECK(value_of(text, "entimg_contract_rule_failures{rule=\"" + first + "\"}") == 250);
  CHECK(value_of(text, "entimg_contract_rule_passed{rule=\"" + second + "\"}") == 1);
  CHECK(value_of(text, "entimg_contract_count") == 296);
  CHECK(value_of(text, "entimg_contract_count_change") == -4);
  CHECK(value_of(text, "entimg_contract_request_duration_seconds_bucket{le=\"0.025\"}") == 0);
  CHECK(value_of(text, "entimg_contract_request_duration_seconds_bucket{le=\"0.05\"}") == 1);
  CHECK(value_of(text, "entimg_contract_request_duration_seconds_count") == 1);
  CHECK_THAT(*state.last_report("json"), Catch::Contains("expected 1, got 2"));
  CHECK_THAT(*state.last_report("html"), Catch::StartsWith("<!DOCTYPE html>"));

  RunReport unreachable;
  unreachable.base_url = "http://127.0.0.1:1";
  unreachable.fatal_error = "cannot check http://127.0.0.1:1/: connection refused";
  unreachable.fatal_failure = FailureKind::connect_refused;
  state.record_run(unreachable, context);
  const std::string down = state.metrics();
  CHECK(value_of(down, "entimg_contract_up{base_url=\"http://127.0.0.1:1\"}") == 0);
  CHECK(value_of(down, "entimg_contract_runs_total{result=\"error\"}") == 1);
  CHECK(value_of(down, "entimg_contract_last_run_failure{kind=\"connect_refused\"}") == 1);
  CHECK(down.find("entimg_contract_count ") == std::string::npos);  // no count seen: no count claimed

  // Reached, but every rule left in skipped: no pass, as the check command's exit 2 says.
  RunReport nothing = report_with(300, false);
  for (RuleOutcome& outcome : nothing.rules)
    outcome.checked = 0;
  REQUIRE(nothing.checked_nothing());
  state.record_run(nothing, context);
  const std::string idle = state.metrics();
  CHECK(value_of(idle, "entimg_contract_up{base_url=\"http://127.0.0.1:8000\"}") == 1);
  CHECK(value_of(idle, "entimg_contract_runs_total{result=\"error\"}") == 2);
  CHECK(value_of(idle, "entimg_contract_runs_total{result=\"pass\"}") == 1);
}

TEST_CASE("the option --interval: durations as Prometheus writes them", "[monitor][cli]") {
  std::string why;
  CHECK(parse_interval("30s", why) == 30s);
  CHECK(parse_interval("5m", why) == 5min);
  CHECK(parse_interval("1h30m", why) == 90min);
  CHECK(parse_interval("250ms", why) == 250ms);
  CHECK(parse_interval("1d", why) == 24h);
  for (const std::string_view bad :
       {"", "5", "5x", "m", "0s", "-5s", "5min", "8d", "1.5s", "99999999999999999999h"}) {
    INFO(bad);
    CHECK_FALSE(parse_interval(bad, why));
    CHECK_FALSE(why.empty());
  }
}
