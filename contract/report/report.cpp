#include "entimg/contract/report.hpp"

#include <iomanip>
#include <nlohmann/json.hpp>

#include "entimg/common/url.hpp"
#include "entimg/common/version.hpp"
#include "report_text.hpp"

namespace entimg::contract {
namespace {

using detail::printable;
using detail::where;

std::string_view mode_name(Mode mode) {
  return mode == Mode::Full ? "full" : "quick";
}

}  // namespace

std::string_view tool_version() {
  return common::kVersion;
}

std::string status_of(const RuleOutcome& outcome, Mode mode) {
  if (!outcome.selected) return "SKIP (left out by --only/--skip)";
  if (outcome.failed()) return "FAIL";
  if (outcome.checked == 0)
    return outcome.rule->group == "walk" && mode == Mode::Quick ? "SKIP (walk rules run in --mode full)"
                                                                : "SKIP (nothing to check)";
  return "PASS";
}

void write_console_report(std::ostream& out, const RunReport& report, std::size_t max_failures_per_rule) {
  out << "entities-images-contract " << tool_version() << ": " << mode_name(report.mode) << " run of "
      << report.base_url << " (seed " << report.seed << ")\n";
  if (!report.fatal_error.empty()) out << "ERROR " << printable(report.fatal_error) << "\n";
  if (!report.stopped.empty())
    out << "STOPPED before its end: " << printable(report.stopped) << "\n        "
        << printable(report.unchecked) << "\n";
  for (const RuleOutcome& r : report.rules) {
    const std::string status = status_of(r, report.mode);
    out << std::left << std::setw(5) << status.substr(0, 4) << " " << std::setw(28) << r.rule->name;
    if (status.starts_with("SKIP"))
      out << " " << status.substr(5);
    else if (r.failed())
      out << " " << r.failures.size() << " failure" << (r.failures.size() == 1 ? "" : "s") << " in "
          << r.checked << " checks";
    else
      out << " " << r.checked << " checked";
    out << "\n";
    if (r.failed()) out << "      rule: " << r.rule->summary << " (" << r.rule->source << ")\n";
    for (std::size_t i = 0; i < r.failures.size() && i < max_failures_per_rule; ++i) {
      out << "      - " << printable(r.failures[i].message) << "\n";
      if (const std::string at = where(r.failures[i]); !at.empty())
        out << "        " << printable(at) << "\n";
    }
    if (r.failures.size() > max_failures_per_rule)
      out << "      … and " << r.failures.size() - max_failures_per_rule
          << " more (all are in the JSON report)\n";
    for (const std::string& note : r.notes)
      out << "      note: " << printable(note) << "\n";
  }
  out << detail::run_totals(report) << "\n" << detail::tally(report) << "\n";
}

void write_json_report(std::ostream& out, const RunReport& report, std::string_view started_at) {
  nlohmann::ordered_json doc;
  doc["tool"] = "entities-images-contract";
  doc["version"] = tool_version();
  doc["base_url"] = report.base_url;
  doc["mode"] = mode_name(report.mode);
  doc["seed"] = report.seed;
  doc["started_at"] = started_at;
  doc["duration_ms"] = report.duration.count();
  doc["requests"] = report.requests;
  doc["records_walked"] = report.records_seen;
  doc["walk_duration_ms"] = report.walk_duration.count();
  doc["error"] = report.fatal_error.empty() ? nlohmann::ordered_json(nullptr)
                                            : nlohmann::ordered_json(report.fatal_error);
  doc["error_kind"] = detail::error_kind(report).empty()
                          ? nlohmann::ordered_json(nullptr)
                          : nlohmann::ordered_json(std::string(detail::error_kind(report)));
  if (!report.stopped.empty()) doc["stopped"] = {{"reason", report.stopped}, {"unchecked", report.unchecked}};
  doc["summary"] = {{"passed", report.passed()},
                    {"failed", report.failed()},
                    {"skipped", report.rules.size() - report.passed() - report.failed()}};
  auto& rules = doc["rules"] = nlohmann::ordered_json::array();
  for (const RuleOutcome& r : report.rules) {
    const std::string status = status_of(r, report.mode);
    nlohmann::ordered_json rule;
    rule["name"] = r.rule->name;
    rule["group"] = r.rule->group;
    rule["summary"] = r.rule->summary;
    rule["source"] = r.rule->source;
    rule["status"] = status.substr(0, 4) == "PASS" ? "pass" : status.substr(0, 4) == "FAIL" ? "fail" : "skip";
    if (status.starts_with("SKIP")) rule["skip_reason"] = status.substr(6, status.size() - 7);
    rule["checked"] = r.checked;
    auto& failures = rule["failures"] = nlohmann::ordered_json::array();
    for (const Failure& f : r.failures) {
      nlohmann::ordered_json item{{"message", f.message}, {"url", f.url}, {"pointer", f.pointer}};
      item["record_id"] =
          f.record_id ? nlohmann::ordered_json(*f.record_id) : nlohmann::ordered_json(nullptr);
      // A side's request: what it sent besides --header's, to replay it.
      for (const auto& [name, value] : f.request_headers)
        item["request_headers"][name] = value;
      failures.push_back(std::move(item));
    }
    rule["notes"] = r.notes;
    rules.push_back(std::move(rule));
  }
  // Broken servers send broken bytes; the report must still be valid JSON.
  out << doc.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) << "\n";
}

}  // namespace entimg::contract
