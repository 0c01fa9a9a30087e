// GitHub Actions workflow commands: an ::error for each failed rule (and for a run that could not check
// the deployment at all), a ::warning for each selected rule that found nothing to check. GitHub shows
// them on the run's summary page. Escaped as the workflow-command rules ask: in the message %, CR and LF;
// in a property also ':' and ','.
#include "entimg/contract/report.hpp"
#include "report_text.hpp"

namespace entimg::contract {

std::string workflow_command_data(std::string_view text) {
  std::string out;
  for (const char c : text) {
    if (c == '%')
      out += "%25";
    else if (c == '\r')
      out += "%0D";
    else if (c == '\n')
      out += "%0A";
    else
      out.push_back(c);
  }
  return out;
}

std::string workflow_command_property(std::string_view text) {
  std::string out;
  for (const char c : workflow_command_data(text)) {
    if (c == ':')
      out += "%3A";
    else if (c == ',')
      out += "%2C";
    else
      out.push_back(c);
  }
  return out;
}

namespace {

void command(std::ostream& out, std::string_view kind, std::string_view title, std::string_view message) {
  out << "::" << kind << " title=" << workflow_command_property(title)
      << "::" << workflow_command_data(message) << "\n";
}

}  // namespace

void write_github_annotations(std::ostream& out, const RunReport& report) {
  if (!report.fatal_error.empty())
    command(out, "error", "entities-images-contract", detail::printable(report.fatal_error));
  for (const RuleOutcome& r : report.rules) {
    const std::string title = "entities-images-contract: " + std::string(r.rule->name);
    if (r.failed()) {
      const Failure& first = r.failures.front();
      std::string message = detail::printable(first.message);
      if (const std::string at = detail::where(first); !at.empty()) message += "\n" + detail::printable(at);
      if (r.failures.size() > 1)
        message +=
            "\n(" + std::to_string(r.failures.size()) + " failures of this rule in all; see the reports)";
      command(out, "error", title, message);
    } else if (status_of(r, report.mode) == "SKIP (nothing to check)" && report.fatal_error.empty()) {
      command(out, "warning", title,
              "nothing to check: no answer this rule could judge (" + std::string(r.rule->summary) + ")");
    }
  }
}

}  // namespace entimg::contract
