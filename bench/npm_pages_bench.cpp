// The native mock library's computed pages a second on one thread: Service::handle on distinct pages of the
// default collection (300,000 generated records), no memo, no HTTP. The reference bench/npm.sh sets the
// WebAssembly core's figure (createMock().fetch, the same pages) against. Usage: entimg-npm-pages-bench
// [PAGES]
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>

#include "entimg/mock/dataset.hpp"
#include "entimg/mock/service.hpp"

int main(int argc, char** argv) {
  using namespace entimg::mock;
  const long pages = argc > 1 ? std::stol(argv[1]) : 20000;
  const Service service(std::shared_ptr<const Dataset>(make_generated_dataset(300000, 1)));
  HttpRequest request;
  request.method = "GET";
  request.server_authority = "127.0.0.1:8000";
  request.headers = {{"Host", "localhost:8000"}};
  std::size_t bytes = 0;
  const auto run = [&](long from, long count) {
    for (long i = from; i < from + count; ++i) {
      // The offsets bench/npm_pages.mjs asks for: spread over the collection, each page computed afresh.
      request.target = "/edw/api/entities-images/?offset=" + std::to_string((i * 7919) % 299988);
      bytes += service.handle(request).body.size();
    }
  };
  run(0, 500);  // warm-up
  const auto start = std::chrono::steady_clock::now();
  run(500, pages);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("native library: %ld pages in %.3f s: %.0f pages/s (%zu body bytes)\n", pages, seconds,
              static_cast<double>(pages) / seconds, bytes);
  return 0;
}
