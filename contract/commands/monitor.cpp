#include <charconv>
#include <condition_variable>
#include <iostream>
#include <thread>

#include "entimg/common/ascii.hpp"
#include "entimg/common/stop_signals.hpp"
#include "entimg/common/terminal_text.hpp"
#include "entimg/contract/monitor.hpp"
#include "entimg/contract/rules.hpp"
#include "monitor_server.hpp"

namespace entimg::contract {
namespace {

using std::chrono::milliseconds;
using Clock = std::chrono::steady_clock;

// The time between runs, cut short by a stop.
class Schedule {
 public:
  void stop() {
    {
      const std::lock_guard lock(mutex_);
      stopped_ = true;
    }
    wake_.notify_all();
  }
  /// Waits until `until` or a stop; false once stopped.
  bool wait_until(Clock::time_point until) {
    std::unique_lock lock(mutex_);
    wake_.wait_until(lock, until, [this] { return stopped_; });
    return !stopped_;
  }
  bool stopped() {
    const std::lock_guard lock(mutex_);
    return stopped_;
  }

 private:
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopped_ = false;
};

detail::MonitorAnswer route(const MonitorState& state, std::string_view path) {
  if (path == "/metrics") return {200, "text/plain; version=0.0.4; charset=utf-8", state.metrics()};
  for (const auto& [format, type] :
       {std::pair<std::string_view, std::string_view>{"html", "text/html; charset=utf-8"},
        {"json", "application/json"}})
    if (path == "/report." + std::string(format)) {
      if (const auto report = state.last_report(std::string(format)))
        return {200, std::string(type), *report};
      return {503, "text/plain; charset=utf-8",
              "no run has ended yet: the first starts with the monitor; try again in a moment\n"};
    }
  if (path == "/")
    return {
        200, "text/plain; charset=utf-8",
        "entities-images-contract monitor\n/metrics      Prometheus metrics\n/report.html  the last run's "
        "report\n/report.json  the same for machines\n"};
  return {404, "text/plain; charset=utf-8", "not found: /metrics, /report.html, /report.json\n"};
}

// A run that could not start (a CA bundle that cannot be read, …) is reported as a run that could not
// check the deployment: every rule unchecked, the reason as the fatal error.
RunReport run_once(const ClientOptions& client_options, const Schemas& schemas,
                   const RunOptions& run_options) {
  try {
    Client client(client_options);
    return run_contract(client, schemas, run_options);
  } catch (const std::exception& e) {
    RunReport report;
    report.base_url = client_options.base_url;
    report.seed = run_options.seed;
    report.fatal_error = e.what();
    for (const Rule& rule : all_rules()) {
      RuleOutcome unchecked;
      unchecked.rule = &rule;
      report.rules.push_back(unchecked);
    }
    return report;
  }
}

std::string summary_of(const RunReport& report) {
  if (!report.fatal_error.empty()) return "ERROR " + common::printable(report.fatal_error);
  if (report.failed() > 0) return "FAIL (" + std::to_string(report.failed()) + " rules failed)";
  if (report.checked_nothing()) return "ERROR " + std::string(kCheckedNothing);
  return "PASS";
}

std::string shown_host(const std::string& host) {
  return host.find(':') != std::string::npos ? "[" + host + "]" : host;
}

}  // namespace

std::optional<milliseconds> parse_interval(std::string_view text, std::string& why) {
  why =
      "needs a duration such as 30s, 5m, 1h or 1h30m (units ms, s, m, h, d), got '" + std::string(text) + "'";
  if (text.empty()) return std::nullopt;
  std::uint64_t total = 0;
  constexpr std::uint64_t kWeek = 7ull * 24 * 3600 * 1000;
  while (!text.empty()) {
    std::uint64_t n = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
    if (ec != std::errc{} || end == text.data()) return std::nullopt;
    text.remove_prefix(static_cast<std::size_t>(end - text.data()));
    std::uint64_t unit = 0;
    for (const auto& [name, ms] : {std::pair<std::string_view, std::uint64_t>{"ms", 1},
                                   {"s", 1000},
                                   {"m", 60000},
                                   {"h", 3600000},
                                   {"d", 86400000}})
      if (text.starts_with(name) && (text.size() == name.size() || !common::ascii_alpha(text[name.size()]))) {
        unit = ms;
        text.remove_prefix(name.size());
        break;
      }
    if (unit == 0) return std::nullopt;
    if (n > kWeek / unit) return why = "needs a duration of at most 7d", std::nullopt;
    total += n * unit;
  }
  if (total == 0 || total > kWeek)
    return why = total == 0 ? "needs a duration above 0" : "needs a duration of at most 7d", std::nullopt;
  why.clear();
  return milliseconds(total);
}

int run_monitor(const ClientOptions& client_options, const RunOptions& run_options,
                const MonitorOptions& options,
                const std::function<RunContext(std::uint64_t seed)>& context_of_run, std::ostream& out,
                std::ostream& err) {
  Schedule schedule;
  const common::StopSignals signals([&schedule] { schedule.stop(); });
  const Schemas schemas = Schemas::load();
  MonitorState state;
  ClientOptions client = client_options;
  client.on_answer = [&state](const HttpExchange& exchange) { state.observe_request(exchange); };
  // A run never outlasts its slot unless told to: a hanging deployment would otherwise stack runs up.
  if (client.deadline.count() == 0) client.deadline = options.interval;

  // One thread over one epoll set: slow or idle clients hold nothing (detail::MonitorServer).
  detail::MonitorServerOptions listen;
  listen.host = options.listen_host;
  listen.port = options.listen_port;
  detail::MonitorServer server(listen, [&state](std::string_view path) { return route(state, path); });
  const int port = server.bind();
  const std::string where = shown_host(options.listen_host) + ":" + std::to_string(options.listen_port);
  if (port < 0) {
    err << "entities-images-contract: monitor: cannot listen on " << where
        << ": the port is taken, or the address is not one of this machine's (--listen HOST:PORT)\n";
    return 2;
  }
  std::thread serving([&server] { server.run(); });
  const std::string url = "http://" + shown_host(options.listen_host) + ":" + std::to_string(port);
  out << "listening on " << url << "\nmetrics at " << url << "/metrics, the last run's report at " << url
      << "/report.html and " << url << "/report.json\n"
      << std::flush;

  for (std::uint64_t run = 1; !schedule.stopped(); ++run) {
    const auto started = Clock::now();
    RunOptions this_run = run_options;
    this_run.seed =
        static_cast<std::uint64_t>(std::chrono::system_clock::now().time_since_epoch().count()) % 1000000007;
    const RunContext context = context_of_run(this_run.seed);
    RunReport report = run_once(client, schemas, this_run);
    state.record_run(report, context);
    out << "run " << run << " at " << context.started_at << ": " << summary_of(report) << ", "
        << report.requests << " requests in " << report.duration.count() << " ms\n"
        << std::flush;
    if (options.runs != 0 && run >= options.runs) break;
    schedule.wait_until(started + options.interval);
  }
  server.stop();
  serving.join();
  out << "stopped\n";
  return 0;
}

}  // namespace entimg::contract
