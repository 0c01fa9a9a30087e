// What the full walk costs before any rule runs: the suite's own HTTP client (cpp-httplib under
// entimg::contract::Client) fetching the walk's pages on N threads, optionally each body parsed into
// simdjson's DOM as the suite parses it. bench/walk.sh sets these beside the walk and curl in the same run,
// so the walk's gap to curl splits into client, parse and rules. Nothing here checks anything.
// Usage: entimg-walk-fetch-bench BASE_URL RECORDS LIMIT THREADS fetch|parse
#include <simdjson.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "entimg/contract/http.hpp"

int main(int argc, char** argv) {
  if (argc != 6) {
    std::fprintf(stderr, "usage: entimg-walk-fetch-bench BASE_URL RECORDS LIMIT THREADS fetch|parse\n");
    return 2;
  }
  const std::string base = argv[1], mode = argv[5];
  unsigned long records = 0, limit = 0, threads = 0;
  try {
    records = std::stoul(argv[2]);
    limit = std::stoul(argv[3]);
    threads = std::stoul(argv[4]);
  } catch (const std::exception&) {
    std::fprintf(stderr, "entimg-walk-fetch-bench: RECORDS, LIMIT and THREADS must be numbers\n");
    return 2;
  }
  if (threads > 64 || limit == 0 || threads == 0 || (mode != "fetch" && mode != "parse")) {
    std::fprintf(stderr,
                 "entimg-walk-fetch-bench: LIMIT must be positive, THREADS 1..64, the mode fetch or parse\n");
    return 2;
  }
  entimg::contract::ClientOptions options;
  options.base_url = base;
  std::unique_ptr<entimg::contract::Client> made;
  try {
    made = std::make_unique<entimg::contract::Client>(options);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "entimg-walk-fetch-bench: %s\n", e.what());
    return 2;
  }
  entimg::contract::Client& client = *made;
  const unsigned long pages = (records + limit - 1) / limit;
  std::atomic<unsigned long> next{0}, bytes{0}, failed{0};
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::thread> workers;
  for (unsigned long t = 0; t < threads; ++t) {
    workers.emplace_back([&] {
      simdjson::dom::parser parser;
      for (unsigned long page = next++; page < pages; page = next++) {
        const auto answer = client.request("GET", "/edw/api/entities-images/?limit=" + std::to_string(limit) +
                                                      "&offset=" + std::to_string(page * limit));
        if (answer.status != 200) ++failed;
        bytes += answer.body.size();
        if (mode == "parse" && parser.parse(answer.body).error() != simdjson::SUCCESS) ++failed;
      }
    });
  }
  for (auto& worker : workers)
    worker.join();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("%s: %lu pages, %lu bytes in %.3f s: %.0f records/s\n", mode.c_str(), pages, bytes.load(),
              seconds, static_cast<double>(records) / seconds);
  if (failed > 0) {
    std::fprintf(stderr, "entimg-walk-fetch-bench: %lu page(s) failed\n", failed.load());
    return 1;
  }
  return 0;
}
