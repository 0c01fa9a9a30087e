// Catch2 is the test framework of the project, and its JUnit reporter is what CI systems read;
// rather than writing XML by hand, each checked rule becomes a Catch2 test case that replays the
// rule's outcome. Catch2 v2 allows one session a process, so this is the only place it runs.
#define CATCH_CONFIG_RUNNER
#include "junit_report.hpp"

#include <catch2/catch.hpp>
#include <deque>
#include <fstream>
#include <string>

namespace entimg::contract {
namespace {

const RunReport* replayed = nullptr;

void replay_rule() {
  const std::string name = Catch::getResultCapture().getCurrentTestName();
  for (const RuleOutcome& r : replayed->rules) {
    if (r.rule->name != name) continue;
    for (const Failure& f : r.failures) {
      std::string at = f.url;
      if (!f.pointer.empty()) at += " at " + f.pointer;
      if (f.record_id) at += ", record id " + std::to_string(*f.record_id);
      FAIL_CHECK(f.message << (at.empty() ? "" : "\n  " + at));
    }
    if (r.failures.empty()) SUCCEED(r.checked << " checked");
  }
}

}  // namespace

bool write_junit_report(const RunReport& report, const std::filesystem::path& file) {
  if (!std::ofstream(file)) return false;
  replayed = &report;
  static std::deque<std::string> tags;  // Catch2 keeps references to the names and tags it is given
  for (const RuleOutcome& r : report.rules) {
    if (!r.selected || (r.checked == 0 && r.failures.empty())) continue;  // not run is not passed
    tags.push_back("[" + std::string(r.rule->group) + "]");
    Catch::AutoReg(Catch::makeTestInvoker(&replay_rule), CATCH_INTERNAL_LINEINFO, Catch::StringRef(),
                   Catch::NameAndTags{Catch::StringRef(r.rule->name.data(), r.rule->name.size()),
                                      Catch::StringRef(tags.back())});
  }
  Catch::Session session;
  const std::string out = file.string();
  const char* argv[] = {"entities-images-contract", "--reporter", "junit", "--out", out.c_str(), "--name",
                        "entities-images-contract"};
  if (session.applyCommandLine(static_cast<int>(std::size(argv)), argv) != 0) return false;
  session.run();
  return true;
}

}  // namespace entimg::contract
