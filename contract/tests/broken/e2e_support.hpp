#pragma once
// What the end-to-end tests share: a variant served on 127.0.0.1 on a free port, a full run of the
// suite against a URL, and the run's outcome in the terms the tests assert on.
#include <chrono>
#include <memory>
#include <set>
#include <sstream>
#include <string>

#include "broken/http_server.hpp"
#include "broken/variants.hpp"
#include "entimg/contract/http.hpp"
#include "entimg/contract/report.hpp"
#include "entimg/contract/runner.hpp"
#include "entimg/mock/dataset.hpp"
#include "entimg/mock/service.hpp"

namespace entimg::broken::e2e {

/// Small enough for a fast full walk, large enough for 21 pages and a partial last one (250 % 12 = 10).
inline constexpr std::uint64_t kRecords = 250;
inline constexpr std::uint64_t kSeed = 7;

/// A variant of the mock, serving until destroyed.
class Deployment {
 public:
  explicit Deployment(const Variant& variant)
      : service_(std::make_shared<BrokenService>(mock::make_generated_dataset(kRecords, kSeed), variant)),
        server_([service = service_](const mock::HttpRequest& r) { return service->handle(r); }),
        base_path_(variant.base_path) {
    server_.start();
  }
  /// The deployment's base URL: its origin and the path it is mounted under.
  std::string url() const { return server_.url() + std::string(base_path_); }

 private:
  std::shared_ptr<BrokenService> service_;
  HandlerServer server_;
  std::string_view base_path_;
};

/// A server answering every request with handler, serving until destroyed.
class Served {
 public:
  explicit Served(Handler handler) : server_(std::move(handler)) { server_.start(); }
  ~Served() { server_.stop(); }
  std::string url() const { return server_.url(); }

 private:
  HandlerServer server_;
};

/// The correct answers for Deployment's records, from the mock, for servers that garble them.
inline mock::Service& correct_service() {
  static mock::Service service(mock::make_generated_dataset(kRecords, kSeed));
  return service;
}

inline const contract::Schemas& schemas() {
  static const contract::Schemas loaded = contract::Schemas::load();
  return loaded;
}

/// Client options for a server on this machine: no retries, timeouts far above what a loopback answer takes
/// on a slow or busy machine (hang guards: a case about a timeout sets its own).
inline contract::ClientOptions local_client(const std::string& url) {
  contract::ClientOptions options;
  options.base_url = url;
  options.connect_timeout = std::chrono::milliseconds(30000);
  options.read_timeout = std::chrono::milliseconds(30000);
  options.retries = 0;
  return options;
}

/// Client options for the variant's deployment: local_client's, with the header the suite must send to meet
/// the variant's fault (Variant::suite_header), if it has one.
inline contract::ClientOptions client_for(const Variant& variant, const std::string& url) {
  contract::ClientOptions options = local_client(url);
  const std::string_view header = variant.suite_header;
  if (const std::size_t colon = header.find(": "); colon != std::string_view::npos)
    options.headers.emplace_back(std::string(header.substr(0, colon)), std::string(header.substr(colon + 2)));
  return options;
}

/// The suite in full mode, seed 42, as `entities-images-contract --mode full --seed 42
/// --concurrency N` runs it (1 follows every next link; 2, the tool's default, fetches the planned
/// offsets ahead).
inline contract::RunReport run_full(const contract::ClientOptions& options, std::size_t concurrency = 1) {
  contract::Client client(options);
  contract::RunOptions run;
  run.mode = contract::Mode::Full;
  run.seed = 42;
  run.concurrency = concurrency;
  contract::RunReport report = contract::run_contract(client, schemas(), run);
  report.base_url = options.base_url;  // run_contract leaves it to the caller, as the tool's main does
  return report;
}

inline std::set<std::string> failed_rules(const contract::RunReport& report) {
  std::set<std::string> out;
  for (const auto& outcome : report.rules)
    if (outcome.failed()) out.emplace(outcome.rule->name);
  return out;
}

inline const contract::RuleOutcome* outcome_of(const contract::RunReport& report, std::string_view rule) {
  for (const auto& outcome : report.rules)
    if (outcome.rule->name == rule) return &outcome;
  return nullptr;
}

/// The console report, for INFO() when an assertion fails.
inline std::string console(const contract::RunReport& report) {
  std::ostringstream out;
  contract::write_console_report(out, report, 3);
  return out.str();
}

}  // namespace entimg::broken::e2e
