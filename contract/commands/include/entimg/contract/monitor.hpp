#pragma once
// `monitor`: the quick checks on a schedule, their outcome as Prometheus metrics on /metrics and the last
// run's reports on /report.html and /report.json (docs/monitor.md).
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <ostream>
#include <string>

#include "entimg/contract/http.hpp"
#include "entimg/contract/report_formats.hpp"
#include "entimg/contract/runner.hpp"

namespace entimg::contract {

struct MonitorOptions {
  std::chrono::milliseconds interval{std::chrono::minutes(5)};  ///< from one run's start to the next's
  std::string listen_host = "127.0.0.1";                        ///< where /metrics is served
  std::uint16_t listen_port = 9464;                             ///< 0 picks a free port
  std::uint64_t runs = 0;  ///< stop after this many runs (0: until SIGINT or SIGTERM)
};

/// What the runs so far say, as /metrics and the report routes show it. Thread-safe.
class MonitorState {
 public:
  MonitorState();
  ~MonitorState();
  /// A request's answer (or its failure) came: its time goes into the latency histogram.
  void observe_request(const HttpExchange& exchange);
  /// A run ended: its outcome replaces the last one's; its reports are kept.
  void record_run(const RunReport& report, const RunContext& context);
  /// The metrics in Prometheus' text exposition format.
  std::string metrics() const;
  /// The last run's report in that format ("html" or "json"); nullopt before the first run ends.
  std::optional<std::string> last_report(std::string_view format) const;

 private:
  struct Data;
  mutable std::mutex mutex_;
  std::unique_ptr<Data> data_;
};

/// The duration "30s", "5m", "1h", "500ms", "1h30m" (units ms s m h d, at least one, positive);
/// nullopt with a reason in `why` otherwise.
std::optional<std::chrono::milliseconds> parse_interval(std::string_view text, std::string& why);

/// Runs the quick checks against client_options' base URL every interval, serving the metrics, until
/// options.runs runs are done or SIGINT/SIGTERM; a run the deployment fails, or that cannot reach it, is
/// a metric, never the end of the monitor. Prints "listening on http://HOST:PORT" once serving. Returns
/// the exit code: 0 stopped, 2 cannot listen. context_of_run gives each run's context (its start, the
/// command that repeats it with that seed).
int run_monitor(const ClientOptions& client_options, const RunOptions& run_options,
                const MonitorOptions& options,
                const std::function<RunContext(std::uint64_t seed)>& context_of_run, std::ostream& out,
                std::ostream& err);

}  // namespace entimg::contract
