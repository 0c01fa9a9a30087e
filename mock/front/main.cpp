// entities-images-mock: parses the command line, builds the service, serves until a signal.
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <iostream>

#include "entimg/common/stop_signals.hpp"
#include "entimg/common/terminal_text.hpp"
#include "entimg/mock/cli.hpp"
#include "entimg/mock/server.hpp"

namespace {

using namespace entimg::mock;

// The collection the options name, with its uploads; throws what a dataset or state directory cannot be.
std::shared_ptr<LiveDataset> load(const Options& o) {
  std::shared_ptr<const Dataset> dataset =
      o.dataset ? load_dataset_file(*o.dataset, o.max_file_bytes) : make_generated_dataset(o.records, o.seed);
  if (o.churn_inserts > 0 || o.churn_deletes > 0)
    dataset = make_churn_dataset(std::move(dataset), o.churn_inserts, o.churn_deletes, o.seed);
  auto live = std::make_shared<LiveDataset>(dataset, o.state, o.max_file_bytes, o.upload_bytes);
  // Each line not served, and why: a crash's cut line, or one the mock did not write.
  for (const std::string& reason : live->dropped_reasons())
    std::cerr << "entities-images-mock: dropped " << entimg::common::printable(reason) << "\n";
  return live;
}

// Whether an address the mock listens on is reachable from this machine only.
bool loopback_address(const std::string& host) {
  return host == "localhost" || host == "::1" || host == "[::1]" || host.starts_with("127.");
}

// Loads, binds and serves until `serving` is stopped; true when it ran.
bool serve(const Options& o, std::unique_ptr<MockServer>& server, std::atomic<MockServer*>& serving) {
  if ((o.admin || o.user) && !loopback_address(o.host))
    std::cerr << "entities-images-mock: warning: --host " << o.host << " with "
              << (o.admin ? "--admin" : "--user")
              << (o.admin ? ": any machine that reaches it can read the request journal, reset the mock and "
                            "change its faults"
                          : ": the password crosses the network in clear (HTTP Basic without TLS)")
              << "; --host 127.0.0.1 keeps it to this machine\n";
  const std::shared_ptr<LiveDataset> live = load(o);
  ServerOptions server_options = o;  // the command line's server part, as it is
  // A live collection changes with time, so no answer is kept for a repeated request.
  if (o.churn_inserts > 0 || o.churn_deletes > 0) server_options.memo_bytes = 0;
  server = std::make_unique<MockServer>(
      std::make_shared<Service>(live, o.user, ServiceOptions{o.sized_pictures}), server_options);
  server->bind();
  std::cout << "listening on " << server->url() << "\n"
            << "serving " << live->describe() << " at " << server->url() << "/edw/api/entities-images/"
            << std::endl;
  if (o.admin) std::cout << "admin routes at " << server->admin_url() << std::endl;
  serving = server.get();
  return server->run();
}

// A stop signal while the data loads: a load has no point at which to stop, so the program ends there.
[[noreturn]] void stop_while_loading() {
  static constexpr char kLine[] = "entities-images-mock: stopped while loading\n";
  (void)!::write(STDERR_FILENO, kLine, sizeof kLine - 1);
  std::_Exit(0);
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string_view> args(argv + 1, argv + argc);
  const ParsedOptions parsed = parse_command_line(args);
  if (!parsed.error.empty()) {
    std::cerr << "entities-images-mock: " << entimg::common::printable(parsed.error)
              << "\nRun with --help for more information.\n";
    return 2;
  }
  const Options& o = parsed.options;
  if (o.help) return std::cout << usage(), 0;
  if (o.version) return std::cout << "entities-images-mock " << version() << "\n", 0;

  std::unique_ptr<MockServer> server;  // outlives the signals' waiter, which may stop it
  std::atomic<MockServer*> serving{nullptr};
  // SIGINT/SIGTERM are waited for from here on, loading included (issue 36: a load of /dev/zero with the
  // signals blocked could not be stopped): before the server runs they end the program at once.
  const entimg::common::StopSignals signals([&serving] {
    MockServer* running = serving.load();
    if (running == nullptr) stop_while_loading();
    running->stop();
  });
  try {
    return serve(o, server, serving) ? 0 : 1;
  } catch (const std::exception& e) {
    std::cerr << "entities-images-mock: error: " << entimg::common::printable(e.what()) << "\n";
    return 1;
  }
}
