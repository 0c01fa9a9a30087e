#pragma once
// Deliberately broken (and tolerably different) deployments of the endpoint: each variant takes the
// mock's correct answer and changes it in exactly one way. The contract suite must fail exactly the
// rules a broken variant lists, and no rule against a tolerated one.
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "entimg/common/url.hpp"
#include "entimg/mock/dataset.hpp"
#include "entimg/mock/service.hpp"
#include "shared_cache.hpp"

namespace entimg::broken {

/// What a correct deployment answers: the mock's service, or the DRF replica over HTTP (the mutation
/// harness runs the tolerated variants over both).
using CorrectAnswer = std::function<mock::HttpResponse(const mock::HttpRequest&)>;

/// One request as a variant sees it, with the correct deployment at hand.
struct Call {
  const mock::HttpRequest& request;
  common::QueryParams params;  ///< the request's query, decoded
  std::uint64_t nth = 1;       ///< 1 the first time this method and target came, 2 the second time, …
  const CorrectAnswer& correct;
  SharedCache& cache;  ///< the deployment's own, for a variant that puts a cache in front of it
  /// The records behind the mock's answers (nullptr over another upstream): a variant that breaks some
  /// records' pictures finds a picture's record by its file.
  const mock::Dataset* dataset = nullptr;

  /// What the correct deployment answers to this request.
  mock::HttpResponse answer() const { return correct(request); }
  /// What it answers to the same request with another query.
  mock::HttpResponse answer_with(const common::QueryParams& query) const;
};

enum class Kind {
  Broken,    ///< breaks the contract: the suite must fail `fails`
  Tolerated  ///< differs from DRF only where the contract allows: the suite must pass
};

struct Variant {
  std::string_view name;  ///< kebab-case, what --variant takes
  Kind kind = Kind::Broken;
  std::string_view rule;                ///< the rule it breaks; empty for a tolerated variant
  std::vector<std::string_view> fails;  ///< every rule a full run fails against it, in rules.cpp order
  std::string_view summary;             ///< what the server does wrong (or differently)
  std::string_view why;                 ///< why `fails` holds more than `rule`, when it does
  std::function<mock::HttpResponse(const Call&)> respond;
  /// Header names on the wire in lower case, those the transport writes (Content-Length, …) too where the
  /// server lets a variant say so (the mutation harness's does; the mock's server writes its own).
  bool lower_case_names = false;
  /// The path the deployment is mounted under (its base URL's path: "/backend"), empty at the root.
  std::string_view base_path = {};
  /// A header the suite must send to meet the fault ("Authorization: Bearer …"), empty for none: without it
  /// the variant is a correct deployment.
  std::string_view suite_header = {};
};

/// Every variant, broken ones first.
const std::vector<Variant>& all_variants();
/// The variant of that name, or nullptr.
const Variant* find_variant(std::string_view name);

/// The mock's Service behind a variant. Thread-safe.
class BrokenService {
 public:
  BrokenService(std::shared_ptr<const mock::Dataset> dataset, const Variant& variant);
  mock::HttpResponse handle(const mock::HttpRequest& request) const;

 private:
  std::shared_ptr<const mock::Dataset> dataset_;
  mock::Service service_;
  CorrectAnswer correct_;
  const Variant& variant_;
  mutable SharedCache cache_;
  mutable std::mutex mutex_;
  mutable std::map<std::string, std::uint64_t> seen_;  ///< "METHOD target" -> times requested
};

}  // namespace entimg::broken
