#pragma once
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "entimg/contract/http.hpp"
#include "entimg/contract/monitor.hpp"
#include "entimg/contract/report_formats.hpp"
#include "entimg/contract/runner.hpp"

namespace entimg::contract {

enum class Command { check, record, diff, monitor };

/// The command line of entities-images-contract.
struct CliOptions {
  Command command = Command::check;  ///< the first word: (none) checks, `record`, `diff`, `monitor`
  ClientOptions client;
  RunOptions run;
  bool seed_given = false;
  std::vector<ReportFile> reports;  ///< --junit FILE, --html FILE, …: one a format (report_formats.hpp)
  /// The headers sent (--header, --header-from-env), secrets by their variable, for reports to show.
  std::vector<ShownHeader> shown_headers;
  bool list = false;
  bool help = false;  ///< --help: print contract_usage(command) and exit
  bool version = false;
  bool progress = true;  ///< --no-progress turns it off
  // record
  std::optional<std::filesystem::path> out;  ///< --out DIR
  bool force = false;                        ///< --force
  // diff
  std::optional<std::filesystem::path> snapshot;  ///< --snapshot DIR (the old side)
  std::optional<std::filesystem::path> against;   ///< --against DIR (a second snapshot instead of --base-url)
  std::vector<std::string> ignore;                ///< --ignore FIELD
  bool strict_host = false;                       ///< --strict-host
  // monitor
  MonitorOptions monitor;  ///< --interval, --listen, --runs

  /// The file asked for with that format's flag ("--junit"), if any.
  std::optional<std::filesystem::path> report_file(std::string_view flag) const;
};

struct ParsedCli {
  CliOptions options;
  std::string error;  ///< one line; empty when the command line is fine
};

/// getenv stands in for the environment (tests pass their own); secrets read through it are never
/// echoed, not even in errors.
ParsedCli parse_contract_command_line(
    const std::vector<std::string_view>& args,
    const std::function<std::optional<std::string>(const std::string&)>& getenv);
/// The --help text of a command, generated from its declared options.
std::string contract_usage(Command command = Command::check);

/// Shell words that repeat a check run: the program and its arguments as given, with --seed S added when
/// the seed came from the clock; a --header-from-env value found among them is masked.
std::string command_to_repeat(std::string_view program, const std::vector<std::string_view>& args,
                              const CliOptions& options);
/// The same for one run of `monitor`: a check run with its options and that seed, the monitor's own
/// options (--interval, --listen, …) left out.
std::string monitor_run_to_repeat(std::string_view program, const std::vector<std::string_view>& args,
                                  const CliOptions& options, std::uint64_t seed);

}  // namespace entimg::contract
