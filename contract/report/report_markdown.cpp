// The Markdown report, for GitHub's step summary ($GITHUB_STEP_SUMMARY): the verdict, the failures
// with a replay command each, the rules and the coverage, in GitHub-flavoured Markdown. Server text is
// escaped both as HTML (GitHub renders inline HTML) and as Markdown.
#include "entimg/common/html.hpp"
#include "entimg/contract/report.hpp"
#include "report_text.hpp"

namespace entimg::contract {
namespace {

// Failures shown a rule; the rest are counted (a step summary holds 1 MiB at most).
constexpr std::size_t kShownFailures = 10;

// Any text as Markdown text: printable, HTML-escaped, and no character that starts emphasis, code, a
// link or a table cell.
std::string md(std::string_view text) {
  std::string out;
  for (const char c : detail::printable(text)) {
    if (std::string_view("\\`*_[]|~").find(c) != std::string_view::npos) out.push_back('\\');
    out.push_back(c);
  }
  std::string escaped;
  common::append_html_escaped(escaped, out);
  return escaped;
}

// A fenced code block whose fence no run of backticks in the text can close.
std::string fenced(std::string_view text, std::string_view indent) {
  std::size_t longest = 0, run = 0;
  for (const char c : text) {
    run = c == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  const std::string fence(std::max<std::size_t>(3, longest + 1), '`');
  return std::string(indent) + fence + "sh\n" + std::string(indent) + std::string(text) + "\n" +
         std::string(indent) + fence + "\n";
}

std::string_view mark(std::string_view verdict) {
  return verdict == "PASS" ? "✅" : verdict == "FAIL" ? "❌" : "⚠️";
}

void write_markdown_failures(std::ostream& out, const RunReport& report, const RunContext& context) {
  if (report.failed() == 0) return;
  out << "\n### Failures\n";
  for (const RuleOutcome& r : report.rules) {
    if (!r.failed()) continue;
    out << "\n**`" << r.rule->name << "`**: " << md(r.rule->summary) << " (" << md(r.rule->source) << ")\n\n";
    for (std::size_t i = 0; i < r.failures.size() && i < kShownFailures; ++i) {
      const Failure& f = r.failures[i];
      out << "- " << md(f.message) << "\n";
      if (const std::string at = detail::where(f); !at.empty()) out << "  " << md(at) << "\n";
      if (!f.url.empty())
        out << fenced(detail::printable(detail::replay_command(r.rule->method(), f.url, context.headers,
                                                               f.request_headers)),
                      "  ");
    }
    if (r.failures.size() > kShownFailures)
      out << "- … and " << r.failures.size() - kShownFailures
          << " more (all are in the JSON and HTML reports)\n";
  }
}

void write_markdown_rules(std::ostream& out, const RunReport& report) {
  out << "\n### Rules\n\n| status | rule | checked | source |\n|---|---|---|---|\n";
  for (const RuleOutcome& r : report.rules) {
    const std::string status = status_of(r, report.mode);
    const std::string word = status.substr(0, 4);
    out << "| "
        << (word == "PASS"   ? "✅ PASS"
            : word == "FAIL" ? "❌ FAIL"
                             : "SKIP")
        << " | `" << r.rule->name << "` | ";
    if (word == "SKIP")
      out << md(status.substr(5));
    else if (r.failed())
      out << r.failures.size() << " failed of " << r.checked;
    else
      out << r.checked;
    out << " | " << md(r.rule->source) << " |\n";
  }
  for (const RuleOutcome& r : report.rules)
    for (const std::string& note : r.notes)
      out << "\nNote (`" << r.rule->name << "`): " << md(note) << "\n";
}

void write_markdown_coverage(std::ostream& out, const RunReport& report) {
  std::size_t exercised = 0;
  for (const CoverageRow& row : report.coverage)
    exercised += row.requests > 0 ? 1 : 0;
  out << "\n<details><summary>DRF behaviours this run exercised: " << exercised << " of "
      << report.coverage.size() << "</summary>\n\n| behaviour | requests | statuses | first request |\n"
      << "|---|---|---|---|\n";
  for (const CoverageRow& row : report.coverage) {
    const std::string statuses = detail::statuses_of(row);
    out << "| " << md(row.behaviour) << " | "
        << (row.requests == 0 ? "not exercised" : std::to_string(row.requests)) << " | " << statuses << " | "
        << md(row.example) << " |\n";
  }
  out << "\n</details>\n";
}

}  // namespace

void write_markdown_report(std::ostream& out, const RunReport& report, const RunContext& context) {
  const std::string verdict = detail::verdict_of(report);
  out << "## " << mark(verdict) << " " << verdict << ": " << detail::verdict_line(report) << "\n\n"
      << md(report.base_url) << " · " << (report.mode == Mode::Full ? "full" : "quick") << " run · seed "
      << report.seed << " · entities-images-contract " << tool_version() << "  \n"
      << detail::tally(report) << " · " << md(detail::run_totals(report)) << "\n";
  if (!report.fatal_error.empty()) out << "\n" << md(report.fatal_error) << "\n";
  write_markdown_failures(out, report, context);
  write_markdown_rules(out, report);
  write_markdown_coverage(out, report);
  out << "\n### Repeat this run\n\n" << fenced(detail::printable(context.command_line), "");
}

}  // namespace entimg::contract
