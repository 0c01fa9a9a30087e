// The native mock library's computed pages a second on one thread, the references bench/npm.sh sets the
// WebAssembly core's figure (the same pages through mock.planRaw) against, on distinct pages of the default
// collection (300,000 generated records), no memo, no HTTP:
//   service: Service::handle on the collection itself, the view and its serializer alone;
//   layers:  what one WebAssembly call runs (mock/wasm/binding.cpp's make_mock): the collection as a
//   LiveDataset
//            (uploads over it), MockApp's admit, respond (faults, CORS, security headers) and finished
//            (journal).
// Usage: entimg-npm-pages-bench [PAGES] [service|layers]
#include <chrono>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>

#include "app.hpp"
#include "entimg/mock/dataset.hpp"
#include "entimg/mock/live_dataset.hpp"
#include "entimg/mock/options.hpp"
#include "entimg/mock/service.hpp"

int main(int argc, char** argv) {
  using namespace entimg::mock;
  const long pages = argc > 1 ? std::stol(argv[1]) : 20000;
  const std::string mode = argc > 2 ? argv[2] : "service";
  if (mode != "service" && mode != "layers") {
    std::fprintf(stderr, "usage: entimg-npm-pages-bench [PAGES] [service|layers]\n");
    return 2;
  }
  std::shared_ptr<const Dataset> dataset(make_generated_dataset(300000, 1));
  const Service bare(dataset);
  Options options;
  options.log = LogFormat::none;  // as createMock() without its log option (the program's default logs)
  const auto live = std::make_shared<LiveDataset>(dataset, std::nullopt, kMaxFileBytes, options.upload_bytes);
  const auto service = std::make_shared<const Service>(live);
  detail::MockApp app([service](const HttpRequest& request) { return service->handle(request); }, options,
                      [](const std::string&) {});
  HttpRequest request;
  request.method = "GET";
  request.server_authority = "localhost:8000";
  request.headers = {{"host", "localhost:8000"}};
  std::size_t bytes = 0;
  const auto run = [&](long from, long count) {
    for (long i = from; i < from + count; ++i) {
      // The offsets bench/npm_pages.mjs asks for: spread over the collection, each page computed afresh.
      request.target = "/edw/api/entities-images/?offset=" + std::to_string((i * 7919) % 299988);
      if (mode == "service") {
        bytes += bare.handle(request).body.size();
      } else {
        const detail::Admission admission = app.admit(request);
        const HttpResponse response = app.respond(request, admission.plan);
        app.finished(request, response.status, response.body.size(), 0.01);
        bytes += response.body.size();
      }
    }
  };
  run(0, 500);  // warm-up
  const auto start = std::chrono::steady_clock::now();
  run(500, pages);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("native library (%s): %ld pages in %.3f s: %.0f pages/s (%zu body bytes)\n", mode.c_str(),
              pages, seconds, static_cast<double>(pages) / seconds, bytes);
  return 0;
}
