#include <sstream>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "entimg/contract/report.hpp"

using namespace entimg::contract;

TEST_CASE("ctrf report: a test a rule, its status, failures and skip reason", "[report][ctrf]") {
  RunReport report;
  report.base_url = "http://api.example.org";
  report.duration = std::chrono::milliseconds(250);
  for (const Rule& rule : all_rules()) {
    RuleOutcome outcome;
    outcome.rule = &rule;
    outcome.checked = rule.group == "walk" ? 0 : 3;
    if (rule.name == "vary_accept")
      outcome.failures.push_back(
          {"vary_accept", "expected Vary to contain Accept, got \"\xff\"", "http://x/", "", 7});
    report.rules.push_back(std::move(outcome));
  }
  std::ostringstream out;
  write_ctrf_report(out, report,
                    {"2025-01-01T00:00:00Z", 1735689600000, "entities-images-contract --seed 1", {}});
  const auto doc = nlohmann::json::parse(out.str());  // valid JSON whatever the server sent
  CHECK(doc["reportFormat"] == "CTRF");
  CHECK(doc["results"]["summary"]["tests"] == all_rules().size());
  CHECK(doc["results"]["summary"]["failed"] == 1);
  CHECK(doc["results"]["summary"]["stop"] == 1735689600250);
  for (const auto& test : doc["results"]["tests"]) {
    if (test["name"] == "vary_accept") {
      CHECK(test["status"] == "failed");
      CHECK(test["message"] == "expected Vary to contain Accept, got \"\xef\xbf\xbd\"");
      CHECK(test["extra"]["failures"][0]["record_id"] == 7);
    }
    if (test["name"] == "walk_reaches_end") {
      CHECK(test["status"] == "skipped");
      CHECK(test["message"] == "walk rules run in --mode full");
    }
  }
}
