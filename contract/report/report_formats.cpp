#include "entimg/contract/report_formats.hpp"

#include <fstream>

#include "entimg/contract/report.hpp"
#include "junit_report.hpp"

namespace entimg::contract {
namespace {

// A writer to a stream, as a writer to a file that says whether the file could be written.
template <typename Write>
bool to_file(const std::filesystem::path& file, const Write& write) {
  std::ofstream out(file);
  write(out);
  out.flush();
  return static_cast<bool>(out);
}

}  // namespace

const std::vector<ReportFormat>& report_formats() {
  static const std::vector<ReportFormat> formats = {
      {"--junit",
       "write a JUnit XML report: a test case a rule, with its time, a\nfailure's message, a skip's reason",
       [](const RunReport& report, const RunContext& context, const std::filesystem::path& file) {
         return write_junit_report(report, context, file);
       },
       [](const DiffReport& report, const DiffOptions&, const std::filesystem::path& file) {
         return write_junit_diff(report, file);
       }},
      {"--json", "write a JSON report",
       [](const RunReport& report, const RunContext& context, const std::filesystem::path& file) {
         return to_file(file, [&](std::ostream& out) { write_json_report(out, report, context.started_at); });
       },
       [](const DiffReport& report, const DiffOptions& options, const std::filesystem::path& file) {
         return to_file(file, [&](std::ostream& out) { write_diff_json(out, report, options); });
       }},
      {"--ctrf",
       "write a Common Test Report Format (CTRF) JSON report",
       [](const RunReport& report, const RunContext& context, const std::filesystem::path& file) {
         return to_file(file, [&](std::ostream& out) { write_ctrf_report(out, report, context); });
       },
       {}},
      {"--html",
       "write a self-contained HTML page: verdict, failures with a curl\ncommand replaying each, rules, "
       "coverage",
       [](const RunReport& report, const RunContext& context, const std::filesystem::path& file) {
         return to_file(file, [&](std::ostream& out) { write_html_report(out, report, context); });
       },
       {}},
      {"--markdown",
       "write GitHub-flavoured Markdown, e.g. into $GITHUB_STEP_SUMMARY",
       [](const RunReport& report, const RunContext& context, const std::filesystem::path& file) {
         return to_file(file, [&](std::ostream& out) { write_markdown_report(out, report, context); });
       },
       {}},
  };
  return formats;
}

}  // namespace entimg::contract
