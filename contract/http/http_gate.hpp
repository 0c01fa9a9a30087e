#pragma once
// What the HTTP client's requests pass before they are sent: the request budget, the run deadline and
// the rate, and the waits between retries.
#include <chrono>
#include <cstddef>
#include <mutex>
#include <optional>
#include <string>

#include "entimg/common/prng.hpp"
#include "entimg/contract/http.hpp"
#include "http_connection.hpp"

namespace entimg::contract::detail {

class RequestGate {
 public:
  RequestGate(const ClientOptions& options, std::optional<Clock::time_point> run_deadline);
  /// Waits for the request's slot and counts it; the reason it may not be sent otherwise.
  std::optional<std::string> admit();
  /// How long to wait before retry `attempt` of a 429/503: its Retry-After, else a jittered backoff.
  std::chrono::milliseconds retry_wait(const Headers& headers, int attempt);
  std::size_t requests_sent() const;
  bool budget_left() const;
  /// Why a request would be refused now, or "".
  std::string refusal() const;
  bool out_of_time() const;

 private:
  std::string deadline_text() const;
  static std::string stop_text();
  std::string budget_text() const;

  const ClientOptions& options_;
  std::optional<Clock::time_point> run_deadline_;
  Clock::duration interval_{0};
  mutable std::mutex mutex_;  // sent_, next_slot_ and jitter_
  std::size_t sent_ = 0;
  Clock::time_point next_slot_;
  common::Pcg32 jitter_;
};

}  // namespace entimg::contract::detail
