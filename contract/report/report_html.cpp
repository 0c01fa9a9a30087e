// The HTML report: one page that needs nothing but itself. No script, no request (its Content-Security-
// Policy forbids both), every text escaped: failure messages quote what a hostile server sent.
#include "entimg/common/ascii.hpp"
#include "entimg/contract/report.hpp"
#include "report_text.hpp"

namespace entimg::contract {
namespace {

using detail::html_escaped;

// Any text, made printable and escaped for an element or a quoted attribute.
std::string h(std::string_view text) {
  return html_escaped(detail::printable(text));
}

constexpr std::string_view kStyle = R"(
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;color:#1f2328;background:#f6f8fa}
main{max-width:1100px;margin:0 auto;padding:0 1.2em 2em}
header.verdict{padding:1.2em 1.5em;color:#fff}
header.verdict h1{margin:0;font-size:1.7em}header.verdict p{margin:.3em 0 0}
.pass{background:#1a7f37}.fail{background:#cf222e}.error{background:#9a6700}
h2{margin-top:1.6em;border-bottom:1px solid #d0d7de;padding-bottom:.2em}
table{border-collapse:collapse;width:100%;background:#fff}
th,td{border:1px solid #d0d7de;padding:.3em .5em;text-align:left;vertical-align:top}
th{background:#eaeef2}td.n{text-align:right;white-space:nowrap}
td.status{font-weight:600;white-space:nowrap}td.status.pass{color:#1a7f37;background:none}
td.status.fail{color:#cf222e;background:none}td.status.skip{color:#6e7781}tr.none td{color:#6e7781}
pre,code{font:13px/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;overflow-wrap:anywhere}
td:nth-child(2) code{overflow-wrap:normal}
pre{background:#fff;border:1px solid #d0d7de;padding:.6em;white-space:pre-wrap}
article{background:#fff;border:1px solid #d0d7de;border-left:4px solid #cf222e;margin:1em 0;padding:.2em 1em}
article h3{margin:.6em 0 .2em}ol{padding-left:1.4em}li{margin:.8em 0}
dl{display:grid;grid-template-columns:max-content 1fr;gap:.15em .8em;margin:.3em 0}dt{font-weight:600}dd{margin:0}
.muted{color:#6e7781}
)";

void write_head(std::ostream& out, const RunReport& report) {
  out << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      << "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src "
         "'unsafe-inline'\">\n"
      << "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      << "<title>" << detail::verdict_of(report) << " · entities-images-contract · " << h(report.base_url)
      << "</title>\n<style>" << kStyle << "</style>\n</head>\n<body>\n";
}

void write_verdict(std::ostream& out, const RunReport& report, const RunContext& context) {
  out << "<header class=\"verdict " << common::ascii_lowered(detail::verdict_of(report)) << "\">\n<h1>"
      << detail::verdict_of(report) << ": " << detail::verdict_line(report) << "</h1>\n<p>"
      << h(report.base_url) << " · " << (report.mode == Mode::Full ? "full" : "quick") << " run · seed "
      << report.seed << " · entities-images-contract " << h(tool_version()) << "</p>\n<p>"
      << detail::tally(report) << "</p>\n";
  if (!report.fatal_error.empty()) out << "<p>" << h(report.fatal_error) << "</p>\n";
  out << "<p>started " << h(context.started_at) << "; " << h(detail::run_totals(report))
      << "</p>\n</header>\n<main>\n";
  out << "<h2>Repeat this run</h2>\n<pre>" << h(context.command_line) << "</pre>\n";
}

void write_rules(std::ostream& out, const RunReport& report) {
  out << "<h2>Rules</h2>\n<table>\n<tr><th>status</th><th>rule</th><th>checked</th><th>what it checks</th>"
      << "<th>source</th></tr>\n";
  for (const RuleOutcome& r : report.rules) {
    const std::string status = status_of(r, report.mode);
    const std::string word = status.substr(0, 4);
    out << "<tr><td class=\"status " << h(common::ascii_lowered(word)) << "\">" << h(word)
        << "</td><td><code>";
    if (r.failed())
      out << "<a href=\"#" << h(r.rule->name) << "\">" << h(r.rule->name) << "</a>";
    else
      out << h(r.rule->name);
    out << "</code></td>";
    if (status.starts_with("SKIP"))
      out << "<td class=\"muted\">" << h(status.substr(5));
    else if (r.failed())
      out << "<td class=\"n\">" << r.failures.size() << " failed of " << r.checked;
    else
      out << "<td class=\"n\">" << r.checked;
    out << "</td><td>" << h(r.rule->summary) << "</td><td>" << h(r.rule->source) << "</td></tr>\n";
  }
  out << "</table>\n";
}

void write_failure(std::ostream& out, const RuleOutcome& r, const Failure& f, const RunContext& context) {
  out << "<li><dl>\n";
  if (const auto parts = detail::split_expected_got(f.message))
    out << "<dt>expected</dt><dd>" << h(parts->expected) << "</dd>\n<dt>got</dt><dd>" << h(parts->got)
        << "</dd>\n";
  else
    out << "<dt>failure</dt><dd>" << h(f.message) << "</dd>\n";
  if (!f.url.empty()) out << "<dt>URL</dt><dd><code>" << h(f.url) << "</code></dd>\n";
  if (!f.pointer.empty()) out << "<dt>pointer</dt><dd><code>" << h(f.pointer) << "</code></dd>\n";
  if (f.record_id) out << "<dt>record id</dt><dd>" << *f.record_id << "</dd>\n";
  out << "</dl>\n";
  if (!f.url.empty())
    out << "<pre>" << h(detail::replay_command(r.rule->method(), f.url, context.headers, f.request_headers))
        << "</pre>\n";
  out << "</li>\n";
}

void write_failures(std::ostream& out, const RunReport& report, const RunContext& context) {
  if (report.failed() == 0) return;
  out << "<h2>Failures</h2>\n<p class=\"muted\">Each with a command that sends the same request again "
         "(secrets as <code>$VAR</code>, read from your environment).</p>\n";
  for (const RuleOutcome& r : report.rules) {
    if (!r.failed()) continue;
    out << "<article id=\"" << h(r.rule->name) << "\">\n<h3><code>" << h(r.rule->name) << "</code></h3>\n<p>"
        << h(r.rule->summary) << " <span class=\"muted\">(" << h(r.rule->source) << ")</span></p>\n<ol>\n";
    for (const Failure& f : r.failures)
      write_failure(out, r, f, context);
    out << "</ol>\n</article>\n";
  }
}

void write_notes(std::ostream& out, const RunReport& report) {
  std::string items;
  for (const RuleOutcome& r : report.rules)
    for (const std::string& note : r.notes)
      items += "<li><code>" + h(r.rule->name) + "</code>: " + h(note) + "</li>\n";
  if (!items.empty()) out << "<h2>Notes</h2>\n<ul>\n" << items << "</ul>\n";
}

void write_coverage(std::ostream& out, const RunReport& report) {
  out << "<h2>DRF behaviours this run exercised</h2>\n<p class=\"muted\">Told by the requests the run made, "
         "classified as they were answered.</p>\n<table>\n<tr><th>behaviour</th><th>requests</th>"
         "<th>statuses</th><th>first request</th><th>source</th></tr>\n";
  for (const CoverageRow& row : report.coverage) {
    const std::string statuses = detail::statuses_of(row);
    out << "<tr" << (row.requests == 0 ? " class=\"none\"" : "") << "><td>" << h(row.behaviour)
        << "</td><td class=\"n\">"
        << (row.requests == 0 ? std::string("not exercised") : std::to_string(row.requests)) << "</td><td>"
        << h(statuses) << "</td><td><code>" << h(row.example) << "</code></td><td>" << h(row.source)
        << "</td></tr>\n";
  }
  out << "</table>\n";
}

}  // namespace

void write_html_report(std::ostream& out, const RunReport& report, const RunContext& context) {
  write_head(out, report);
  write_verdict(out, report, context);
  write_failures(out, report, context);
  write_rules(out, report);
  write_notes(out, report);
  write_coverage(out, report);
  out << "</main>\n</body>\n</html>\n";
}

}  // namespace entimg::contract
