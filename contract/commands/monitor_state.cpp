#include "entimg/contract/monitor.hpp"

#include <array>
#include <sstream>

#include "entimg/contract/report.hpp"
#include "exposition.hpp"

namespace entimg::contract {
namespace {

using std::chrono::milliseconds;

constexpr std::string_view kPrefix = "entimg_contract_";

std::string metric(std::string_view name) {
  return std::string(kPrefix) + std::string(name);
}

double seconds_of(milliseconds ms) {
  return static_cast<double>(ms.count()) / 1000.0;
}

}  // namespace

struct MonitorState::Data {
  // Seconds; Prometheus' client libraries' default buckets.
  detail::Histogram latency{{0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10}};
  std::uint64_t runs_passed = 0, runs_failed = 0, runs_error = 0;
  bool ran = false;
  bool up = false;
  FailureKind failure = FailureKind::none;  // why the last run could not check, when it could not
  std::string base_url;
  double started_seconds = 0;
  double duration_seconds = 0;
  std::uint64_t requests = 0;
  std::vector<RuleOutcome> rules;
  std::optional<std::uint64_t> count, previous_count;
  std::string html, json;
};

MonitorState::MonitorState() : data_(std::make_unique<Data>()) {}
MonitorState::~MonitorState() = default;

void MonitorState::observe_request(const HttpExchange& exchange) {
  if (exchange.attempts == 0) return;  // never sent: nothing was timed
  const std::lock_guard lock(mutex_);
  data_->latency.observe(seconds_of(exchange.elapsed));
}

void MonitorState::record_run(const RunReport& report, const RunContext& context) {
  std::ostringstream html, json;
  write_html_report(html, report, context);
  write_json_report(json, report, context.started_at);
  const std::lock_guard lock(mutex_);
  Data& d = *data_;
  d.ran = true;
  d.up = report.fatal_error.empty();
  d.failure = report.fatal_failure;
  // A run in which no rule passed or failed is no pass, as the check command says (exit 2): an error,
  // though the deployment was reached (up stays 1).
  ++(!d.up || report.checked_nothing() ? d.runs_error : report.failed() > 0 ? d.runs_failed : d.runs_passed);
  d.base_url = report.base_url;
  d.started_seconds = static_cast<double>(context.started_ms) / 1000.0;
  d.duration_seconds = seconds_of(report.duration);
  d.requests = report.requests;
  d.rules = report.rules;
  d.previous_count = d.count;
  d.count = report.count;
  d.html = std::move(html).str();
  d.json = std::move(json).str();
}

std::optional<std::string> MonitorState::last_report(std::string_view format) const {
  const std::lock_guard lock(mutex_);
  if (!data_->ran) return std::nullopt;
  return format == "html" ? data_->html : data_->json;
}

namespace {

// Each selected rule's outcome in the last run: passed, failed, and the failures it found.
void rule_metrics(detail::Exposition& out, const std::vector<RuleOutcome>& rules) {
  const std::array<std::pair<std::string_view, std::string_view>, 3> rule_families = {{
      {"rule_passed", "1 when the rule passed in the last run (it checked something and found no failure)"},
      {"rule_failed", "1 when the rule failed in the last run"},
      {"rule_failures", "Failures the rule found in the last run"},
  }};
  for (const auto& [name, help] : rule_families) {
    out.family(metric(name), help, "gauge");
    for (const RuleOutcome& r : rules) {
      if (!r.selected) continue;
      const double value = name == "rule_passed"   ? r.passed()
                           : name == "rule_failed" ? r.failed()
                                                   : static_cast<double>(r.failures_found);
      out.sample(metric(name), {{"rule", std::string(r.rule->name)}}, value);
    }
  }
}

// The collection's count, when the last run's first page gave one, and its change since the run before.
void count_metrics(detail::Exposition& out, std::optional<std::uint64_t> count,
                   std::optional<std::uint64_t> previous_count) {
  if (!count) return;
  out.family(metric("count"), "The collection's count the last run's first page gave", "gauge");
  out.sample(metric("count"), static_cast<double>(*count));
  if (previous_count) {
    out.family(metric("count_change"), "The count of the last run minus the count of the run before",
               "gauge");
    out.sample(metric("count_change"), static_cast<double>(*count) - static_cast<double>(*previous_count));
  }
}

}  // namespace

std::string MonitorState::metrics() const {
  const std::lock_guard lock(mutex_);
  const Data& d = *data_;
  detail::Exposition out;
  out.family(metric("runs_total"),
             "Runs of the quick checks, by result: pass, fail (a rule failed), error "
             "(the deployment could not be checked, or no rule was)",
             "counter");
  out.sample(metric("runs_total"), {{"result", "pass"}}, static_cast<double>(d.runs_passed));
  out.sample(metric("runs_total"), {{"result", "fail"}}, static_cast<double>(d.runs_failed));
  out.sample(metric("runs_total"), {{"result", "error"}}, static_cast<double>(d.runs_error));
  out.histogram(metric("request_duration_seconds"),
                "Time of each request the checks sent, retries included, answered or not", d.latency);
  if (!d.ran) return out.text();

  out.family(metric("up"),
             "1 when the last run could check the deployment, 0 when it could not "
             "(connection, TLS, timeout on the first page)",
             "gauge");
  out.sample(metric("up"), {{"base_url", d.base_url}}, d.up ? 1 : 0);
  if (d.failure != FailureKind::none) {
    out.family(metric("last_run_failure"),
               "1, labelled with the kind of transport failure that kept the last run from checking the "
               "deployment (connect_refused, read_timeout, tls, ...)",
               "gauge");
    out.sample(metric("last_run_failure"), {{"kind", std::string(to_string(d.failure))}}, 1);
  }
  out.family(metric("last_run_timestamp_seconds"),
             "When the last run started, in seconds since the Unix epoch", "gauge");
  out.sample(metric("last_run_timestamp_seconds"), d.started_seconds);
  out.family(metric("last_run_duration_seconds"), "How long the last run took", "gauge");
  out.sample(metric("last_run_duration_seconds"), d.duration_seconds);
  out.family(metric("last_run_requests"), "Requests the last run sent", "gauge");
  out.sample(metric("last_run_requests"), static_cast<double>(d.requests));

  rule_metrics(out, d.rules);
  count_metrics(out, d.count, d.previous_count);
  return out.text();
}

}  // namespace entimg::contract
