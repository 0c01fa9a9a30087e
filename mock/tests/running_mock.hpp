#pragma once
// A mock server for the tests: 1,000 generated records (seed 1; or as many as asked) on an ephemeral loopback
// port, started by the constructor and stopped by the destructor, so the test that makes one stops it.
#include <memory>
#include <utility>

#include "entimg/mock/dataset.hpp"
#include "entimg/mock/server.hpp"

namespace entimg::mock::testing {

struct RunningMock {
  explicit RunningMock(ServerOptions options = listen_on("127.0.0.1", 0, 8), std::uint64_t records = 1000)
      : server(std::make_shared<Service>(make_generated_dataset(records, 1)), std::move(options)) {
    server.start();
  }
  int port() const { return server.port(); }
  MockServer server;
};

}  // namespace entimg::mock::testing
