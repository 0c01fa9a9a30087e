#pragma once
// Reports of a run. None of them ever contains a secret: a header from the environment is shown as
// "$VAR" in a replay command, and answers that echo one were masked before any check read them.
#include <ostream>
#include <string>

#include "entimg/contract/report_formats.hpp"
#include "entimg/contract/runner.hpp"

namespace entimg::contract {

/// Console report: one line a rule (PASS/FAIL/SKIP), each failure with expected/got, URL and JSON
/// pointer or record id, the notes, and a last line "N passed, N failed, N skipped".
void write_console_report(std::ostream& out, const RunReport& report, std::size_t max_failures_per_rule = 10);

/// JSON report for machines: every rule with its status, counts, failures and notes.
void write_json_report(std::ostream& out, const RunReport& report, std::string_view started_at);

/// One self-contained HTML page (no script, no request): the verdict, how to repeat the run, every failure
/// with expected/got, URL, pointer and a curl command replaying it, a line per rule with its source, and the
/// DRF behaviours the run's requests exercised.
void write_html_report(std::ostream& out, const RunReport& report, const RunContext& context);

/// GitHub-flavoured Markdown for a step summary: the verdict, each failure (ten a rule) with its replay
/// command, the rules, the coverage and the command that repeats the run.
void write_markdown_report(std::ostream& out, const RunReport& report, const RunContext& context);

/// A Common Test Report Format document (specVersion 0.0.0): one test a rule, passed, failed or skipped,
/// its failures in message/trace and, with URL and pointer, in extra.
void write_ctrf_report(std::ostream& out, const RunReport& report, const RunContext& context);

/// GitHub Actions workflow commands (for a run where GITHUB_ACTIONS=true): an ::error a failed rule, with
/// its first failure, and for a run that could not check at all; a ::warning a rule with nothing to check.
void write_github_annotations(std::ostream& out, const RunReport& report);

/// A workflow command's message: % CR LF escaped as GitHub's workflow-command rules ask.
std::string workflow_command_data(std::string_view text);
/// A workflow command's property value (title=…): the same, and ':' ','.
std::string workflow_command_property(std::string_view text);

/// "PASS", "FAIL" or "SKIP" and why it was skipped.
std::string status_of(const RuleOutcome& outcome, Mode mode);

/// The tool's version, printed in reports.
std::string_view tool_version();

}  // namespace entimg::contract
