#include "report_text.hpp"

#include <algorithm>
#include <iomanip>
#include <sstream>

#include "entimg/common/ascii.hpp"
#include "entimg/common/terminal_text.hpp"
#include "entimg/common/url.hpp"

namespace entimg::contract::detail {

std::string printable(std::string_view text) {
  return common::printable(text);
}

std::string where(const Failure& f) {
  std::string at = f.url;
  if (!f.pointer.empty()) at += (at.empty() ? "" : " ") + std::string("at ") + f.pointer;
  if (f.record_id) at += (at.empty() ? "" : ", ") + std::string("record id ") + std::to_string(*f.record_id);
  return at;
}

std::string shell_quoted(std::string_view text) {
  const bool plain = !text.empty() && text.find_first_not_of(
                                          "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                          "0123456789_-./:=,@%+") == std::string_view::npos;
  if (plain) return std::string(text);
  std::string out = "'";
  for (const char c : text)
    out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string replay_command(std::string_view method, std::string_view url,
                           const std::vector<ShownHeader>& shown, const Headers& own) {
  std::string command = "curl -sS";
  command += method == "HEAD" ? " --head" : method == "GET" ? " -i" : " -i -X " + shell_quoted(method);
  std::vector<ShownHeader> headers;
  for (const ShownHeader& h : shown)
    if (std::none_of(own.begin(), own.end(),
                     [&](const auto& o) { return common::iequals_ascii(o.first, h.name); }))
      headers.push_back(h);
  for (const auto& [name, value] : own)
    headers.push_back({name, value, {}});
  bool user_agent = false;
  for (const ShownHeader& h : headers) {
    user_agent = user_agent || common::iequals_ascii(h.name, "User-Agent");
    // "$VAR" stays outside single quotes, so the shell that runs the command puts the secret in.
    if (!h.variable.empty())
      command += " -H " + shell_quoted(h.name + ": ") + "\"$" + h.variable + "\"";
    else
      command += " -H " + shell_quoted(h.name + ": " + h.value);
  }
  if (!user_agent) command += " -H " + shell_quoted("User-Agent: " + std::string(kUserAgent));
  return command + " " + shell_quoted(url);
}

std::string verdict_of(const RunReport& report) {
  if (!report.fatal_error.empty() || report.checked_nothing()) return "ERROR";
  if (report.failed() == 0 && !report.stopped.empty()) return "ERROR";  // what it left may hold a failure
  return report.failed() > 0 ? "FAIL" : "PASS";
}

std::string_view error_kind(const RunReport& report) {
  return report.fatal_error.empty() ? std::string_view() : to_string(report.fatal_failure);
}

std::string verdict_line(const RunReport& report) {
  if (!report.fatal_error.empty()) return "the deployment could not be checked";
  if (report.checked_nothing()) return std::string(kCheckedNothing);
  if (report.failed() == 0 && !report.stopped.empty())
    return "stopped before its end (" + report.stopped +
           "): every rule that ran passed, but not all of it ran";
  if (report.failed() == 0) return "every rule that ran passed";
  return std::to_string(report.failed()) + (report.failed() == 1 ? " rule failed" : " rules failed");
}

std::string run_totals(const RunReport& report) {
  const auto seconds = [](std::chrono::milliseconds ms) { return static_cast<double>(ms.count()) / 1000.0; };
  std::ostringstream out;
  out << std::fixed << std::setprecision(1) << report.requests << " requests";
  if (report.mode == Mode::Full)
    out << ", " << report.records_seen << " records walked in " << seconds(report.walk_duration) << " s ("
        << std::setprecision(0)
        << static_cast<double>(report.records_seen) / std::max(0.001, seconds(report.walk_duration))
        << " records/s)" << std::setprecision(1);
  out << ", " << seconds(report.duration) << " s in all";
  return out.str();
}

std::string tally(const RunReport& report) {
  const std::size_t skipped = report.rules.size() - report.passed() - report.failed();
  return std::to_string(report.passed()) + " passed, " + std::to_string(report.failed()) + " failed, " +
         std::to_string(skipped) + " skipped";
}

std::string statuses_of(const CoverageRow& row) {
  std::string text;
  for (const int status : row.statuses)
    text += (text.empty() ? "" : ", ") + (status == 0 ? std::string("no answer") : std::to_string(status));
  return text;
}

std::optional<ExpectedGot> split_expected_got(std::string_view message) {
  constexpr std::string_view kExpected = "expected ", kGot = ", got ";
  const auto got = message.find(kGot);
  if (!message.starts_with(kExpected) || got == std::string_view::npos) return std::nullopt;
  return ExpectedGot{std::string(message.substr(kExpected.size(), got - kExpected.size())),
                     std::string(message.substr(got + kGot.size()))};
}

}  // namespace entimg::contract::detail
