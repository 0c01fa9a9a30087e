#pragma once
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "entimg/contract/diff_report.hpp"
#include "entimg/contract/report_formats.hpp"
#include "entimg/contract/runner.hpp"

namespace entimg::contract {

/// One JUnit test case: it passed, failed (with every failure's text), was skipped (saying why), or could
/// not run (an error: the deployment could not be checked).
struct JunitCase {
  std::string name;
  std::string classname;  ///< "entities-images-contract.links": the rule's group
  double seconds = 0;     ///< its time
  std::vector<std::string>
      failures;            ///< each failure, message then where; the first is the failure's message
  std::string skipped;     ///< why it was skipped; empty: it ran
  std::string error;       ///< why it could not run; empty: it could
  std::string error_type;  ///< the error's kind ("connect_refused", …)
};

/// One JUnit test suite: the run, or the diff.
struct JunitSuite {
  std::string name = "entities-images-contract";
  std::string timestamp;  ///< UTC, "2025-01-31T12:00:00" (JUnit files carry no time zone)
  double seconds = 0;
  std::vector<std::pair<std::string, std::string>> properties;
  std::vector<JunitCase> cases;
  std::string system_out;  ///< the notes the rules left
};

/// The suite as a JUnit XML document, valid under Jenkins' JUnit schema (junit-4.xsd): every case a
/// <testcase> with its time, a failed one's <failure message type> holding every failure, a skipped one's
/// <skipped> holding why, an error's <error message type>, the host's name and the counts. Server text is
/// made printable and escaped, so a document stays well-formed whatever a broken server sent.
std::string junit_xml(const JunitSuite& suite);

/// The run: one test case a rule, every rule of the table (those --only/--skip left out and those that found
/// nothing to judge skipped, saying why), and an error case when the deployment could not be checked.
bool write_junit_report(const RunReport& report, const RunContext& context,
                        const std::filesystem::path& file);

/// The diff: a test case for each kind of change (count, records added, removed, changed, schema drift,
/// headers), failing with one message a change.
bool write_junit_diff(const DiffReport& report, const std::filesystem::path& file);

}  // namespace entimg::contract
