#pragma once
// Latency and faults for testing an app: seeded draws, or asked for one request at a time with X-Mock-*
// headers. docs/mock.md, "Latency, faults, CORS, log".
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "entimg/mock/http_types.hpp"

namespace entimg::mock {

struct FaultOptions {
  std::uint32_t latency_ms = 0;  ///< --latency MS[:JITTER]: every answer waits MS, plus 0..JITTER
  std::uint32_t jitter_ms = 0;
  double fail_rate = 0;             ///< --fail-rate P: this share of requests gets fail_status
  int fail_status = 503;            ///< --fail-status N: a row of mock/http/fault_statuses.hpp
  double drop_rate = 0;             ///< --drop-rate P: this share is closed with no answer
  std::uint64_t slow_body_bps = 0;  ///< --slow-body BYTES_PER_S: bodies trickle at this rate; 0 = full speed
  std::uint64_t seed = 1;           ///< --seed: the draws above repeat from run to run
  /// --max-delay MS: the longest delay a request may ask for (X-Mock-Latency above it gets 400)
  std::uint32_t max_delay_ms = 60'000;
};

/// What happens to one request besides the service's answer.
struct Plan {
  std::chrono::milliseconds delay{0};
  std::optional<int> fail_status;  ///< answer this instead of the service's
  bool drop = false;               ///< close the connection, answer nothing
  std::uint64_t slow_body_bps = 0;
  std::optional<HttpResponse> refusal;  ///< an X-Mock-* header that cannot be honoured: answered 400
};

/// Draws the plan of requests in arrival order (thread-safe); X-Mock-Latency, X-Mock-Fail, X-Mock-Drop
/// and X-Mock-Slow-Body on a request replace the draws for that request.
class FaultPlanner {
 public:
  explicit FaultPlanner(FaultOptions options);
  Plan plan(const HttpRequest& request);
  /// The options in force; replace() swaps them at run time (PUT /__mock/faults) and restarts the
  /// seeded draws, so the same requests then meet the same faults as after a start with them.
  FaultOptions options() const;
  void replace(FaultOptions options);

 private:
  struct State;
  FaultOptions options_;
  std::shared_ptr<State> state_;
};

}  // namespace entimg::mock
