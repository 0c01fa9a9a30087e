// Catch2 is the test framework of the project, and its JUnit reporter is what CI systems read;
// rather than writing XML by hand, each case becomes a Catch2 test case that replays its outcome.
// Catch2 v2 allows one session a process, so this is the only place it runs. Catch2's implementation
// is the entimg::catch2 library.
#include "junit_report.hpp"

#include <catch2/catch.hpp>
#include <deque>
#include <fstream>
#include <string>

#include "entimg/catch2/session.hpp"

namespace entimg::contract {
namespace {

const std::vector<JunitCase>* replayed = nullptr;

void replay_case() {
  const std::string name = Catch::getResultCapture().getCurrentTestName();
  for (const JunitCase& c : *replayed) {
    if (c.name != name) continue;
    for (const std::string& f : c.failures)
      FAIL_CHECK(f);
    if (c.failures.empty()) SUCCEED(c.passed);
  }
}

std::string shown(const std::optional<nlohmann::json>& value) {
  return value ? value->dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) : "(absent)";
}

std::string shown(const std::optional<std::string>& value) {
  return value ? "\"" + *value + "\"" : "(absent)";
}

}  // namespace

bool write_junit_cases(const std::vector<JunitCase>& cases, const std::filesystem::path& file) {
  if (!std::ofstream(file)) return false;
  replayed = &cases;
  static std::deque<std::string> tags;  // Catch2 keeps references to the names and tags it is given
  for (const JunitCase& c : cases) {
    tags.push_back(c.tag);
    Catch::AutoReg(
        Catch::makeTestInvoker(&replay_case), CATCH_INTERNAL_LINEINFO, Catch::StringRef(),
        Catch::NameAndTags{Catch::StringRef(c.name.data(), c.name.size()), Catch::StringRef(tags.back())});
  }
  const std::string out = file.string();
  const char* argv[] = {"entities-images-contract", "--reporter", "junit", "--out", out.c_str(), "--name",
                        "entities-images-contract"};
  return catch2::run_session(static_cast<int>(std::size(argv)), argv);
}

bool write_junit_report(const RunReport& report, const std::filesystem::path& file) {
  static std::vector<JunitCase> cases;  // outlives the session, which refers to the names
  for (const RuleOutcome& r : report.rules) {
    if (!r.selected || (r.checked == 0 && r.failures.empty())) continue;  // not run is not passed
    JunitCase c{std::string(r.rule->name),
                "[" + std::string(r.rule->group) + "]",
                {},
                std::to_string(r.checked) + " checked"};
    for (const Failure& f : r.failures) {
      std::string at = f.url;
      if (!f.pointer.empty()) at += " at " + f.pointer;
      if (f.record_id) at += ", record id " + std::to_string(*f.record_id);
      c.failures.push_back(f.message + (at.empty() ? "" : "\n  " + at));
    }
    cases.push_back(std::move(c));
  }
  return write_junit_cases(cases, file);
}

bool write_junit_diff(const DiffReport& r, const std::filesystem::path& file) {
  static std::vector<JunitCase> cases;
  cases.reserve(8);  // `add` hands out pointers into it
  const auto add = [](std::string name, std::string passed) {
    cases.push_back({std::move(name), "[diff]", {}, std::move(passed)});
    return &cases.back().failures;
  };
  if (!r.error.empty()) {
    add("diff", "")->push_back(r.error);
    return write_junit_cases(cases, file);
  }
  if (r.count_changed())
    add("count", "")
        ->push_back("count " + std::to_string(r.before_count) + " -> " + std::to_string(r.after_count));
  else
    add("count", "count " + std::to_string(r.after_count) + " unchanged");
  auto* added = add("records_added", "no record added");
  for (const auto& rec : r.added_records)
    added->push_back("added: " + rec.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
  if (r.added > r.added_records.size())
    added->push_back("... and " + std::to_string(r.added - r.added_records.size()) + " more");
  auto* removed = add("records_removed", "no record removed");
  for (const auto& rec : r.removed_records)
    removed->push_back("removed: " + rec.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
  if (r.removed > r.removed_records.size())
    removed->push_back("... and " + std::to_string(r.removed - r.removed_records.size()) + " more");
  auto* changed = add("records_changed", std::to_string(r.after_records) + " records compared, none changed");
  for (const auto& c : r.changed_records) {
    std::string line = "id " + std::to_string(c.id) + ":";
    for (const auto& f : c.fields)
      line += " " + f.field + " " + shown(f.before) + " -> " + shown(f.after) + ";";
    changed->push_back(line);
  }
  if (r.changed > r.changed_records.size())
    changed->push_back("... and " + std::to_string(r.changed - r.changed_records.size()) + " more");
  auto* drift = add("schema_drift", "same fields, same types");
  for (const auto& f : r.fields_added)
    drift->push_back("field added: " + f);
  for (const auto& f : r.fields_removed)
    drift->push_back("field removed: " + f);
  for (const auto& t : r.types_changed)
    drift->push_back("type changed: " + t.field + " " + t.before + " -> " + t.after);
  auto* headers = add("headers", "same headers on the first page");
  for (const auto& h : r.headers)
    headers->push_back(h.name + ": " + shown(h.before) + " -> " + shown(h.after));
  return write_junit_cases(cases, file);
}

}  // namespace entimg::contract
