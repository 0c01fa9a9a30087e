#pragma once
// Every report file format, declared once: its option, its help and its writers. The command line and
// --help (cli.cpp), main's writing of the files and docs/reports.md all follow this one table.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "entimg/contract/diff_report.hpp"
#include "entimg/contract/http.hpp"
#include "entimg/contract/runner.hpp"

namespace entimg::contract {

/// A header the suite sent, as a report may show it.
struct ShownHeader {
  std::string name;
  std::string value;     ///< as given by --header; empty when it came from the environment
  std::string variable;  ///< --header-from-env's VAR: the report shows "$VAR", never the secret
};

/// What reports say about a run besides its outcome: when it ran, how to repeat it, how to replay a request.
struct RunContext {
  std::string started_at;            ///< UTC, "2025-01-31T12:00:00Z"
  std::int64_t started_ms = 0;       ///< the same, in milliseconds since the Unix epoch
  std::string command_line;          ///< shell words that repeat the run, its seed included
  std::vector<ShownHeader> headers;  ///< the headers the suite sent besides its User-Agent
};

using RunWriter = std::function<bool(const RunReport&, const RunContext&, const std::filesystem::path&)>;
using DiffWriter = std::function<bool(const DiffReport&, const DiffOptions&, const std::filesystem::path&)>;

struct ReportFormat {
  std::string_view flag;  ///< "--html"; it takes FILE
  std::string_view help;  ///< one line for --help
  RunWriter write_run;    ///< writes the report of a check run; false when the file cannot be written
  DiffWriter write_diff;  ///< the same for `diff`; empty when the format has no diff report
};

/// Every report file format, in the order --help lists them.
const std::vector<ReportFormat>& report_formats();

/// A report asked for on the command line: its format and the file to write.
struct ReportFile {
  const ReportFormat* format = nullptr;
  std::filesystem::path file;
};

}  // namespace entimg::contract
