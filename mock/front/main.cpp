// entities-images-mock: parses the command line, builds the service, serves until a signal.
#include <iostream>

#include "entimg/common/stop_signals.hpp"
#include "entimg/mock/cli.hpp"
#include "entimg/mock/server.hpp"

int main(int argc, char** argv) {
  using namespace entimg::mock;
  const std::vector<std::string_view> args(argv + 1, argv + argc);
  const ParsedOptions parsed = parse_command_line(args);
  if (!parsed.error.empty()) {
    std::cerr << "entities-images-mock: " << parsed.error << "\nRun with --help for more information.\n";
    return 2;
  }
  const Options& o = parsed.options;
  if (o.help) return std::cout << usage(), 0;
  if (o.version) return std::cout << "entities-images-mock " << version() << "\n", 0;

  entimg::common::block_stop_signals();

  try {
    std::shared_ptr<const Dataset> dataset =
        o.dataset ? load_dataset_file(*o.dataset) : make_generated_dataset(o.records, o.seed);
    if (o.churn_inserts > 0 || o.churn_deletes > 0)
      dataset = make_churn_dataset(std::move(dataset), o.churn_inserts, o.churn_deletes, o.seed);
    auto live = std::make_shared<LiveDataset>(dataset, o.state);
    // Each line not served, and why: a crash's cut line, or one the mock did not write.
    for (const std::string& reason : live->dropped_reasons())
      std::cerr << "entities-images-mock: dropped " << reason << "\n";
    ServerOptions server_options = o;  // the command line's server part, as it is
    // A live collection changes with time, so no answer is kept for a repeated request.
    if (o.churn_inserts > 0 || o.churn_deletes > 0) server_options.memo_bytes = 0;
    MockServer server(std::make_shared<Service>(live, o.user), server_options);
    server.bind();
    std::cout << "listening on " << server.url() << "\n"
              << "serving " << live->describe() << " at " << server.url() << "/edw/api/entities-images/"
              << std::endl;
    if (o.admin) std::cout << "admin routes at " << server.admin_url() << std::endl;
    return entimg::common::run_until_stop_signal(server) ? 0 : 1;
  } catch (const std::exception& e) {
    std::cerr << "entities-images-mock: error: " << e.what() << "\n";
    return 1;
  }
}
