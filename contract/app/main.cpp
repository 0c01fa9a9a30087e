// entities-images-contract: parses the command line, runs the suite, writes the reports and maps
// the outcome to an exit code (0 pass, 1 contract failure, 2 usage or connection error).
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <iostream>
#include <optional>

#include "entimg/common/terminal_text.hpp"
#include "entimg/contract/cli.hpp"
#include "entimg/contract/monitor.hpp"
#include "entimg/contract/report.hpp"
#include "entimg/contract/report_formats.hpp"
#include "entimg/contract/snapshot.hpp"
#include "progress.hpp"

namespace {

using namespace entimg::contract;

// Each report file asked for, by its format's writer; false, after saying which file, when one cannot be
// written.
template <typename Write>
bool write_report_files(const CliOptions& o, const Write& write) {
  bool ok = true;
  for (const ReportFile& r : o.reports)
    if (!write(*r.format, r.file)) {
      std::cerr << "entities-images-contract: cannot write " << r.file.string() << "\n";
      ok = false;
    }
  return ok;
}

// GitHub Actions sets GITHUB_ACTIONS=true; its workflow commands on stdout become annotations.
bool in_github_actions() {
  const char* actions = std::getenv("GITHUB_ACTIONS");
  return actions != nullptr && std::string_view(actions) == "true";
}

// A run's context as it starts: now, and the command that repeats it.
RunContext context_from_now(std::string command_line, const CliOptions& o) {
  RunContext context;
  const auto now = std::chrono::system_clock::now();
  context.started_ms = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count();
  char started[32];
  const std::time_t seconds = std::chrono::system_clock::to_time_t(now);
  std::strftime(started, sizeof started, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&seconds));
  context.started_at = started;
  context.command_line = std::move(command_line);
  context.headers = o.shown_headers;
  return context;
}

// record and diff (docs/snapshots.md).
int run_snapshot_command(CliOptions& o) {
  try {
    const std::uint64_t limit = o.run.walk_limit ? o.run.walk_limit : 100;
    std::optional<Client> client;
    if (!o.client.base_url.empty()) client.emplace(o.client);
    ProgressDisplay progress(std::cerr, isatty(STDERR_FILENO) != 0);
    const auto on_progress = [&](const Progress& p) {
      if (o.progress) progress.update(p);
    };
    if (o.command == Command::record) {
      RecordOptions options{*o.out, limit, o.run.concurrency, o.force, on_progress};
      const RecordResult result = record_snapshot(*client, options);
      progress.finish();
      for (const auto& w : result.warnings)
        std::cerr << "entities-images-contract: warning: " << entimg::common::printable(w) << "\n";
      if (!result.error.empty()) {
        std::cerr << "entities-images-contract: record: " << entimg::common::printable(result.error) << "\n";
        if (result.records > 0)
          std::cerr << "entities-images-contract: " << result.records << " records are kept in "
                    << o.out->string() << ".partial; the same command resumes from there\n";
        return 2;
      }
      std::cout << "recorded " << result.records << " records (count " << result.count << ") into "
                << o.out->string()
                << (result.resumed ? " (resumed after " + std::to_string(result.resumed_records) + " records)"
                                   : "")
                << "\n";
      return 0;
    }
    DiffOptions options;
    options.ignore = o.ignore;
    options.strict_host = o.strict_host;
    options.limit = limit;
    options.concurrency = o.run.concurrency;
    options.on_progress = on_progress;
    const DiffReport report = diff_snapshot(*o.snapshot, o.against, client ? &*client : nullptr, options);
    progress.finish();
    write_diff_console(std::cout, report);
    if (!write_report_files(o, [&](const ReportFormat& format, const std::filesystem::path& file) {
          return format.write_diff(report, options, file);
        }))
      return 2;
    if (!report.error.empty()) return 2;
    return report.any_change() ? 1 : 0;
  } catch (const std::exception& e) {
    std::cerr << "entities-images-contract: error: " << entimg::common::printable(e.what()) << "\n";
    return 2;
  }
}

// The monitor: a run every interval until stopped, served to Prometheus.
int run_monitor_command(const CliOptions& o, const char* program, const std::vector<std::string_view>& args) {
  try {
    return run_monitor(
        o.client, o.run, o.monitor,
        [&](std::uint64_t seed) {
          return context_from_now(monitor_run_to_repeat(program, args, o, seed), o);
        },
        std::cout, std::cerr);
  } catch (const std::exception& e) {
    std::cerr << "entities-images-contract: monitor: error: " << entimg::common::printable(e.what()) << "\n";
    return 2;
  }
}

// Set by SIGTERM or SIGINT during a check run: the client then refuses requests, and the run ends with a
// report of what it checked (a CI job's timeout sends SIGTERM before it kills).
std::atomic<bool> stop_asked{false};
void on_stop_signal(int) {
  stop_asked.store(true);
}

void catch_stop_signals() {
  struct sigaction action {};
  action.sa_handler = on_stop_signal;
  action.sa_flags = static_cast<int>(SA_RESETHAND);  // a second signal ends the program at once
  sigemptyset(&action.sa_mask);
  sigaction(SIGTERM, &action, nullptr);
  sigaction(SIGINT, &action, nullptr);
}

// A check run: the console report, the report files, and the exit code of the verdict.
int run_check_command(CliOptions& o, const char* program, const std::vector<std::string_view>& args) {
  if (!o.seed_given)
    o.run.seed =
        static_cast<std::uint64_t>(std::chrono::system_clock::now().time_since_epoch().count()) % 1000000007;
  try {
    const Schemas schemas = Schemas::load();
    o.client.stop = &stop_asked;
    catch_stop_signals();
    Client client(o.client);
    ProgressDisplay progress(std::cerr, isatty(STDERR_FILENO) != 0);
    if (o.progress && o.run.mode == Mode::Full)
      o.run.on_progress = [&](const Progress& p) { progress.update(p); };
    const RunContext context = context_from_now(command_to_repeat(program, args, o), o);
    RunReport report = run_contract(client, schemas, o.run);
    progress.finish();
    report.base_url = o.client.base_url;
    write_console_report(std::cout, report);
    if (in_github_actions()) write_github_annotations(std::cout, report);
    if (!write_report_files(o, [&](const ReportFormat& format, const std::filesystem::path& file) {
          return format.write_run(report, context, file);
        }))
      return 2;
    if (!report.fatal_error.empty()) return 2;
    if (!report.stopped.empty() && report.failed() == 0) {  // what it left unchecked may hold a failure
      std::cerr << "entities-images-contract: error: stopped before its end: " << report.stopped << "\n";
      return 2;
    }
    if (report.checked_nothing()) {  // a gate that checked nothing must not pass
      std::cerr << "entities-images-contract: error: " << kCheckedNothing << " (see the SKIP lines)\n";
      if (in_github_actions())
        std::cout << "::error title=entities-images-contract::" << workflow_command_data(kCheckedNothing)
                  << "\n";
      return 2;
    }
    return report.failed() > 0 ? 1 : 0;
  } catch (const std::exception& e) {
    std::cerr << "entities-images-contract: error: " << entimg::common::printable(e.what()) << "\n";
    if (in_github_actions())
      std::cout << "::error title=entities-images-contract::" << workflow_command_data(e.what()) << "\n";
    return 2;
  }
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string_view> args(argv + 1, argv + argc);
  ParsedCli parsed =
      parse_contract_command_line(args, [](const std::string& name) -> std::optional<std::string> {
        const char* value = std::getenv(name.c_str());
        return value ? std::optional<std::string>(value) : std::nullopt;
      });
  if (!parsed.error.empty()) {
    std::cerr << "entities-images-contract: " << parsed.error << "\nRun with --help for more information.\n";
    return 2;
  }
  CliOptions& o = parsed.options;
  if (o.help) return std::cout << contract_usage(o.command), 0;
  if (o.version) return std::cout << "entities-images-contract " << tool_version() << "\n", 0;
  if (o.list) {
    for (const Rule& r : all_rules())
      std::cout << r.name << "  [" << r.group << "]  " << r.summary << " (" << r.source << ")\n";
    return 0;
  }
  if (o.client.insecure && o.client.base_url.size() > 0)
    std::cerr << "WARNING: --insecure: TLS certificates are NOT verified; anyone on the path can impersonate "
              << o.client.base_url << "\n";
  if (o.command == Command::monitor) return run_monitor_command(o, argv[0], args);
  if (o.command != Command::check) return run_snapshot_command(o);
  return run_check_command(o, argv[0], args);
}
