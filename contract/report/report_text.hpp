#pragma once
// Text the reports share: server text made safe to print, a failure's place, shell words for commands
// a person copies, and a failure's message split into what was expected and what came.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "entimg/common/html.hpp"
#include "entimg/contract/checks.hpp"
#include "entimg/contract/report_formats.hpp"

namespace entimg::contract::detail {

/// common::printable: invalid UTF-8 replaced, control and bidi characters escaped; what a broken server sent,
/// safe for a terminal.
std::string printable(std::string_view text);

/// "URL at /pointer, record id N", each part only when the failure has it.
std::string where(const Failure& failure);

/// & < > " ' as HTML entities (Django's escape() spelling), safe in element text and attribute values.
using common::html_escaped;

/// One shell word: the text in single quotes where it needs quoting.
std::string shell_quoted(std::string_view text);

/// A curl command that sends what the suite sent: the method, the URL, the User-Agent and the headers
/// (a secret as "$VAR", expanded by the shell that runs the command), the request's own (a side's) in
/// place of those of the same name, printing the answer's headers.
std::string replay_command(std::string_view method, std::string_view url,
                           const std::vector<ShownHeader>& headers, const Headers& own = {});

/// "PASS", "FAIL" (a rule failed) or "ERROR" (the deployment could not be checked).
std::string verdict_of(const RunReport& report);
/// Why an ERROR run could not check, as a machine reads it: its failure's kind ("connect_refused", "tls",
/// …; "none" when nothing was asked, a setup error); empty when the run checked.
std::string_view error_kind(const RunReport& report);
/// What the verdict means for this run: "every rule that ran passed", "2 rules failed", …
std::string verdict_line(const RunReport& report);

/// "42 requests, 300 records walked in 0.3 s (1000 records/s), 0.4 s in all" (the walk only in full mode).
std::string run_totals(const RunReport& report);

/// "N passed, N failed, N skipped".
std::string tally(const RunReport& report);

/// A coverage row's statuses: "200, 404", "no answer" for 0.
std::string statuses_of(const CoverageRow& row);

struct ExpectedGot {
  std::string expected;
  std::string got;
};
/// "expected X, got Y" as {X, Y}; nullopt for a message of another shape.
std::optional<ExpectedGot> split_expected_got(std::string_view message);

}  // namespace entimg::contract::detail
