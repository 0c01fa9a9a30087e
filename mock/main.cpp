// entities-images-mock: parses the command line, builds the service, serves until a signal.
#include <csignal>
#include <iostream>
#include <thread>

#include "entimg/mock/cli.hpp"
#include "entimg/mock/server.hpp"

int main(int argc, char** argv) {
  using namespace entimg::mock;
  const std::vector<std::string_view> args(argv + 1, argv + argc);
  const ParsedOptions parsed = parse_command_line(args);
  if (!parsed.error.empty()) {
    std::cerr << "entities-images-mock: " << parsed.error << "\n\n" << usage();
    return 2;
  }
  const Options& o = parsed.options;
  if (o.help) return std::cout << usage(), 0;
  if (o.version) return std::cout << "entities-images-mock " << version() << "\n", 0;

  // Block the stop signals in every thread; one thread waits for them and stops the server.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  std::signal(SIGPIPE, SIG_IGN);

  try {
    std::shared_ptr<const Dataset> dataset =
        o.dataset ? load_dataset_file(*o.dataset) : make_generated_dataset(o.records, o.seed);
    ServerOptions server_options{o.host, o.port, o.threads, o.faults, o.cors, o.log};
    MockServer server(std::make_shared<Service>(dataset, o.user), server_options);
    server.bind();
    std::cout << "listening on " << server.url() << "\n"
              << "serving " << dataset->describe() << " at " << server.url() << "/edw/api/entities-images/"
              << std::endl;
    std::thread waiter([&server, stop_signals] {
      int signal = 0;
      sigwait(&stop_signals, &signal);
      server.stop();
    });
    const bool ok = server.run();
    if (waiter.joinable()) {
      pthread_kill(waiter.native_handle(), SIGTERM);  // wakes the waiter if run() ended by itself
      waiter.join();
    }
    return ok ? 0 : 1;
  } catch (const std::exception& e) {
    std::cerr << "entities-images-mock: error: " << e.what() << "\n";
    return 1;
  }
}
