// The Common Test Report Format (CTRF, specVersion 0.0.0; the schema is the npm package ctrf's
// src/ctrf-schema-0.0.json): one test a rule, for the dashboards and CI plug-ins that read CTRF.
#include <nlohmann/json.hpp>

#include "entimg/contract/report.hpp"
#include "report_text.hpp"

namespace entimg::contract {
namespace {

using Json = nlohmann::ordered_json;

Json failure_json(const Failure& f) {
  return {{"message", f.message},
          {"url", f.url},
          {"pointer", f.pointer},
          {"record_id", f.record_id ? Json(*f.record_id) : Json(nullptr)}};
}

// One rule as a CTRF test. Rules judge answers as they come, interleaved, so a rule has no duration of its
// own: 0.
Json test_json(const RuleOutcome& r, Mode mode) {
  const std::string status = status_of(r, mode);
  Json test;
  test["name"] = r.rule->name;
  test["status"] = status.starts_with("PASS") ? "passed" : status.starts_with("FAIL") ? "failed" : "skipped";
  test["duration"] = 0;
  test["suite"] = {r.rule->group};
  test["rawStatus"] = status;
  if (r.failed()) {
    std::string trace;
    for (const Failure& f : r.failures)
      trace += f.message + (detail::where(f).empty() ? "" : "\n  " + detail::where(f)) + "\n";
    test["message"] = r.failures.front().message;
    test["trace"] = trace;
  } else if (status.starts_with("SKIP")) {
    test["message"] = status.substr(6, status.size() - 7);
  }
  test["tags"] = {r.rule->group};
  test["labels"] = {{"source", r.rule->source}, {"checked", r.checked}};
  Json failures = Json::array();
  for (const Failure& f : r.failures)
    failures.push_back(failure_json(f));
  test["extra"] = {{"summary", r.rule->summary}, {"failures", failures}, {"notes", r.notes}};
  return test;
}

}  // namespace

void write_ctrf_report(std::ostream& out, const RunReport& report, const RunContext& context) {
  Json doc;
  doc["reportFormat"] = "CTRF";
  doc["specVersion"] = "0.0.0";
  doc["timestamp"] = context.started_at;
  doc["generatedBy"] = "entities-images-contract " + std::string(tool_version());
  Json& results = doc["results"];
  results["tool"] = {{"name", "entities-images-contract"}, {"version", tool_version()}};
  const std::size_t skipped = report.rules.size() - report.passed() - report.failed();
  results["summary"] = {{"tests", report.rules.size()},
                        {"passed", report.passed()},
                        {"failed", report.failed()},
                        {"skipped", skipped},
                        {"pending", 0},
                        {"other", 0},
                        {"start", context.started_ms},
                        {"stop", context.started_ms + report.duration.count()},
                        {"duration", report.duration.count()}};
  Json& tests = results["tests"] = Json::array();
  for (const RuleOutcome& r : report.rules)
    tests.push_back(test_json(r, report.mode));
  results["environment"] = {{"reportName", "entities-images-contract " + detail::verdict_of(report)},
                            {"testEnvironment", report.base_url}};
  results["extra"] = {
      {"base_url", report.base_url},
      {"mode", report.mode == Mode::Full ? "full" : "quick"},
      {"seed", report.seed},
      {"requests", report.requests},
      {"records_walked", report.records_seen},
      {"command_line", context.command_line},
      {"error", report.fatal_error.empty() ? Json(nullptr) : Json(report.fatal_error)},
      {"error_kind",
       detail::error_kind(report).empty() ? Json(nullptr) : Json(std::string(detail::error_kind(report)))}};
  // Broken servers send broken bytes; the report must still be valid JSON.
  out << doc.dump(2, ' ', false, Json::error_handler_t::replace) << "\n";
}

}  // namespace entimg::contract
