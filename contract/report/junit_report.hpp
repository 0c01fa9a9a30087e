#pragma once
#include <filesystem>
#include <string>
#include <vector>

#include "entimg/contract/diff_report.hpp"
#include "entimg/contract/runner.hpp"

namespace entimg::contract {

/// One JUnit test case: it fails with one message a failure, or passes saying `passed`.
struct JunitCase {
  std::string name;
  std::string tag;  ///< e.g. "[links]"
  std::vector<std::string> failures;
  std::string passed;
};

/// Writes the cases as JUnit XML through Catch2's own junit reporter, replaying them (nothing is run
/// again). Catch2 v2 allows one session a process: call one of these once. False when the file could
/// not be written.
bool write_junit_cases(const std::vector<JunitCase>& cases, const std::filesystem::path& file);

/// The run: one test case a rule that was checked, failing with one message a violation.
bool write_junit_report(const RunReport& report, const std::filesystem::path& file);

/// The diff: a test case for each kind of change (count, records added, removed, changed, schema drift,
/// headers), failing with one message a change.
bool write_junit_diff(const DiffReport& report, const std::filesystem::path& file);

}  // namespace entimg::contract
