#pragma once
// The correct deployments mutants start from: the mock's service in process, and any server over
// HTTP (the DRF replica, mock/tests/differential/serve_drf.py, started by the harness).
#include <memory>
#include <mutex>
#include <string>

#include "entimg/mock/dataset.hpp"
#include "entimg/mock/service.hpp"
#include "mutants.hpp"

namespace entimg::mutants {

/// The mock's service over a dataset.
class ServiceUpstream final : public Upstream {
 public:
  ServiceUpstream(std::shared_ptr<const mock::Dataset> dataset, std::string description);
  mock::HttpResponse handle(const mock::HttpRequest& request) override;
  std::uint64_t count() const override { return count_; }
  std::string describe() const override { return description_; }

 private:
  mock::Service service_;
  std::string description_;
  std::uint64_t count_ = 0;
};

/// A server on this machine, asked over HTTP one request at a time (the replica is single-threaded).
/// HEAD is asked as GET, so the transport can send GET's length; Host is passed on, so links name
/// the mutant server.
class HttpUpstream final : public Upstream {
 public:
  HttpUpstream(std::string host, int port, std::string description);
  mock::HttpResponse handle(const mock::HttpRequest& request) override;
  std::uint64_t count() const override { return count_; }
  std::string describe() const override { return description_; }

 private:
  std::string host_;
  int port_;
  std::string description_;
  std::mutex mutex_;
  std::uint64_t count_ = 0;
};

/// The collection's count as the upstream answers its first page (0 when it cannot).
std::uint64_t count_of(Upstream& upstream);

}  // namespace entimg::mutants
