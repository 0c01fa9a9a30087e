// The JUnit XML report, for CI systems' test tabs and dashboards (GitLab, Jenkins, and the parsers behind
// dashboards). Written here rather than by Catch2's junit reporter, which it was until issue 44: that
// reporter cannot mark a case skipped, times its replay rather than the rule (every time 0), names the host
// "tbd", gives a failure no message attribute and puts the source path of its own replay in every failure.
// The document is checked against Jenkins' JUnit schema (junit-4.xsd) and read back by an npm parser
// (contract.junit_report_dashboards).
#include "junit_report.hpp"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <climits>
#include <cstdio>
#include <ctime>
#include <fstream>

#include "entimg/contract/report.hpp"
#include "report_text.hpp"

namespace entimg::contract {
namespace {

// Text for an XML document: printable line by line (invalid UTF-8 replaced, control bytes but the line breaks
// as \xNN, which XML 1.0 could not carry), U+FFFE and U+FFFF (valid UTF-8, not XML characters) replaced, and
// escaped for element text and attribute values alike.
std::string xml_text(std::string_view text) {
  std::string out;
  for (std::size_t from = 0; from <= text.size();) {
    const std::size_t end = std::min(text.find('\n', from), text.size());
    out += detail::printable(text.substr(from, end - from));
    if (end < text.size()) out += '\n';
    from = end + 1;
  }
  for (const std::string_view non_character : {"\xEF\xBF\xBE", "\xEF\xBF\xBF"})
    for (std::size_t at = out.find(non_character); at != std::string::npos; at = out.find(non_character, at))
      out.replace(at, non_character.size(), "\xEF\xBF\xBD");
  return detail::html_escaped(out);
}

std::string seconds_text(double seconds) {
  std::array<char, 32> text{};
  std::snprintf(text.data(), text.size(), "%.3f", seconds < 0 ? 0.0 : seconds);
  return text.data();
}

std::string host_name() {
  std::array<char, HOST_NAME_MAX + 1> name{};
  if (::gethostname(name.data(), name.size() - 1) != 0 || name[0] == '\0') return "localhost";
  return name.data();
}

// "2025-01-31T12:00:00Z" without its zone (UTC), as JUnit files carry their timestamp.
std::string without_zone(std::string timestamp) {
  if (!timestamp.empty() && timestamp.back() == 'Z') timestamp.pop_back();
  return timestamp;
}

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  std::tm parts{};
  ::gmtime_r(&now, &parts);
  std::array<char, 32> text{};
  std::strftime(text.data(), text.size(), "%Y-%m-%dT%H:%M:%S", &parts);
  return text.data();
}

void write_case(std::string& out, const JunitCase& c) {
  out += "    <testcase name=\"" + xml_text(c.name) + "\" classname=\"" + xml_text(c.classname) +
         "\" time=\"" + seconds_text(c.seconds) + "\"";
  if (c.failures.empty() && c.skipped.empty() && c.error.empty()) {
    out += "/>\n";
    return;
  }
  out += ">\n";
  if (!c.error.empty()) {
    out += "      <error message=\"" + xml_text(c.error) + "\" type=\"" + xml_text(c.error_type) + "\">" +
           xml_text(c.error) + "</error>\n";
  } else if (!c.failures.empty()) {
    // One <failure> a case, as dashboards count them: its message the first failure, its text every one.
    std::string all;
    for (const std::string& f : c.failures)
      all += f + "\n";
    const std::size_t newline = c.failures.front().find('\n');
    out += "      <failure message=\"" + xml_text(c.failures.front().substr(0, newline)) +
           "\" type=\"ContractViolation\">" + xml_text(all) + "</failure>\n";
  } else {
    // Jenkins' schema takes a skip's reason as the element's text (it allows <skipped> no attribute); Jenkins
    // shows it, GitLab shows it as the case's output.
    out += "      <skipped>" + xml_text(c.skipped) + "</skipped>\n";
  }
  out += "    </testcase>\n";
}

double seconds_of(std::chrono::nanoseconds time) {
  return std::chrono::duration<double>(time).count();
}

JunitCase rule_case(const RuleOutcome& r, Mode mode) {
  JunitCase c;
  c.name = r.rule->name;
  c.classname = "entities-images-contract." + std::string(r.rule->group);
  c.seconds = seconds_of(r.judged_for);
  const std::string status = status_of(r, mode);
  if (status.starts_with("SKIP")) {
    c.skipped = status.substr(6, status.size() - 7);  // "SKIP (why)"
    return c;
  }
  for (const Failure& f : r.failures) {
    const std::string at = detail::where(f);
    c.failures.push_back(f.message + (at.empty() ? "" : "\n  " + at));
  }
  return c;  // past the kept failures, the last says how many more (RuleOutcome::failures)
}

std::string shown(const std::optional<nlohmann::json>& value) {
  return value ? value->dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) : "(absent)";
}

std::string shown(const std::optional<std::string>& value) {
  return value ? "\"" + *value + "\"" : "(absent)";
}

bool write_text(const std::filesystem::path& file, const std::string& text) {
  std::ofstream out(file, std::ios::binary);
  out << text;
  out.flush();
  return static_cast<bool>(out);
}

}  // namespace

std::string junit_xml(const JunitSuite& suite) {
  std::size_t failures = 0, errors = 0, skipped = 0;
  for (const JunitCase& c : suite.cases) {
    if (!c.error.empty())
      ++errors;
    else if (!c.failures.empty())
      ++failures;
    else if (!c.skipped.empty())
      ++skipped;
  }
  const std::string counts = "tests=\"" + std::to_string(suite.cases.size()) + "\" failures=\"" +
                             std::to_string(failures) + "\" errors=\"" + std::to_string(errors) +
                             "\" skipped=\"" + std::to_string(skipped) + "\" time=\"" +
                             seconds_text(suite.seconds) + "\"";
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  // The counts on <testsuite> only: Jenkins' schema allows <testsuites> no skipped count, and a reader that
  // found the others there without it would count the skipped cases as passed.
  out += "<testsuites name=\"" + xml_text(suite.name) + "\" time=\"" + seconds_text(suite.seconds) + "\">\n";
  out += "  <testsuite name=\"" + xml_text(suite.name) + "\" package=\"" + xml_text(suite.name) +
         "\" id=\"0\" " + counts + " timestamp=\"" + xml_text(suite.timestamp) + "\" hostname=\"" +
         xml_text(host_name()) + "\">\n";
  out += "    <properties>\n";
  for (const auto& [name, value] : suite.properties)
    out += "      <property name=\"" + xml_text(name) + "\" value=\"" + xml_text(value) + "\"/>\n";
  out += "    </properties>\n";
  for (const JunitCase& c : suite.cases)
    write_case(out, c);
  out += "    <system-out>" + xml_text(suite.system_out) + "</system-out>\n";
  out += "    <system-err></system-err>\n";
  out += "  </testsuite>\n</testsuites>\n";
  return out;
}

bool write_junit_report(const RunReport& report, const RunContext& context,
                        const std::filesystem::path& file) {
  JunitSuite suite;
  suite.timestamp = without_zone(context.started_at);
  suite.seconds = std::chrono::duration<double>(report.duration).count();
  suite.properties = {{"base_url", report.base_url},
                      {"mode", report.mode == Mode::Full ? "full" : "quick"},
                      {"seed", std::to_string(report.seed)},
                      {"version", std::string(tool_version())},
                      {"requests", std::to_string(report.requests)},
                      {"command", context.command_line}};
  if (!report.fatal_error.empty() || report.checked_nothing()) {
    const std::string_view kind = detail::error_kind(report);
    suite.cases.push_back({"deployment_checked",
                           "entities-images-contract",
                           suite.seconds,
                           {},
                           "",
                           report.fatal_error.empty() ? std::string(kCheckedNothing) : report.fatal_error,
                           kind.empty() ? "none" : std::string(kind)});
  }
  for (const RuleOutcome& r : report.rules) {
    suite.cases.push_back(rule_case(r, report.mode));
    for (const std::string& note : r.notes)
      suite.system_out += std::string(r.rule->name) + ": " + note + "\n";
  }
  return write_text(file, junit_xml(suite));
}

bool write_junit_diff(const DiffReport& r, const std::filesystem::path& file) {
  JunitSuite suite;
  suite.name = "entities-images-contract diff";
  suite.timestamp = utc_now();
  suite.cases.reserve(8);  // `add` hands out references into it
  const auto add = [&](std::string name) -> std::vector<std::string>& {
    JunitCase& c = suite.cases.emplace_back();
    c.name = std::move(name);
    c.classname = "entities-images-contract.diff";
    return c.failures;
  };
  if (!r.error.empty()) {
    suite.cases.push_back({"diff", "entities-images-contract.diff", 0, {}, "", r.error, "diff_error"});
    return write_text(file, junit_xml(suite));
  }
  if (r.count_changed())
    add("count").push_back("count " + std::to_string(r.before_count) + " -> " +
                           std::to_string(r.after_count));
  else
    add("count");
  const auto dumped = [](const nlohmann::json& record) {
    return record.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  };
  auto& added = add("records_added");
  for (const auto& rec : r.added_records)
    added.push_back("added: " + dumped(rec));
  if (r.added > r.added_records.size())
    added.push_back("... and " + std::to_string(r.added - r.added_records.size()) + " more");
  auto& removed = add("records_removed");
  for (const auto& rec : r.removed_records)
    removed.push_back("removed: " + dumped(rec));
  if (r.removed > r.removed_records.size())
    removed.push_back("... and " + std::to_string(r.removed - r.removed_records.size()) + " more");
  auto& changed = add("records_changed");
  for (const auto& c : r.changed_records) {
    std::string line = "id " + std::to_string(c.id) + ":";
    for (const auto& f : c.fields)
      line += " " + f.field + " " + shown(f.before) + " -> " + shown(f.after) + ";";
    changed.push_back(line);
  }
  if (r.changed > r.changed_records.size())
    changed.push_back("... and " + std::to_string(r.changed - r.changed_records.size()) + " more");
  auto& drift = add("schema_drift");
  for (const auto& f : r.fields_added)
    drift.push_back("field added: " + f);
  for (const auto& f : r.fields_removed)
    drift.push_back("field removed: " + f);
  for (const auto& t : r.types_changed)
    drift.push_back("type changed: " + t.field + " " + t.before + " -> " + t.after);
  auto& headers = add("headers");
  for (const auto& h : r.headers)
    headers.push_back(h.name + ": " + shown(h.before) + " -> " + shown(h.after));
  return write_text(file, junit_xml(suite));
}

}  // namespace entimg::contract
