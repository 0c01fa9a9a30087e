#include "http_gate.hpp"

#include <algorithm>
#include <thread>

#include "entimg/common/ascii.hpp"

namespace entimg::contract::detail {
namespace {

using std::chrono::milliseconds;

constexpr auto kFirstBackoff = milliseconds(250);

}  // namespace

RequestGate::RequestGate(const ClientOptions& options, std::optional<Clock::time_point> run_deadline)
    : options_(options),
      run_deadline_(run_deadline),
      next_slot_(Clock::now()),
      jitter_(static_cast<std::uint64_t>(Clock::now().time_since_epoch().count()), 0x6a177e5) {
  if (options_.rate > 0 && options_.rate < 1e9) {
    interval_ =
        std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(1.0 / options_.rate));
  }
}

std::size_t RequestGate::requests_sent() const {
  const std::lock_guard lock(mutex_);
  return sent_;
}

bool RequestGate::budget_left() const {
  return refusal().empty();
}

std::string RequestGate::refusal() const {
  const std::lock_guard lock(mutex_);
  if (options_.stop != nullptr && options_.stop->load()) return stop_text();
  if (run_deadline_ && Clock::now() >= *run_deadline_) return deadline_text();
  if (options_.max_requests != 0 && sent_ >= options_.max_requests) return budget_text();
  return "";
}

bool RequestGate::out_of_time() const {
  return (options_.stop != nullptr && options_.stop->load()) ||
         (run_deadline_ && Clock::now() >= *run_deadline_);
}

std::string RequestGate::stop_text() {
  return "not sent: the run was asked to stop (SIGTERM or SIGINT)";
}

std::string RequestGate::deadline_text() const {
  return "not sent: the run deadline of " + ms_text(options_.deadline) + " is used up";
}

std::string RequestGate::budget_text() const {
  return "not sent: the request budget of " + std::to_string(options_.max_requests) + " requests is used up";
}

// Spacing rather than bursts: N requests at rate R never take less than (N-1)/R, whatever the threads do.
std::optional<std::string> RequestGate::admit() {
  Clock::time_point slot;
  {
    const std::lock_guard lock(mutex_);
    const auto now = Clock::now();
    if (options_.stop != nullptr && options_.stop->load()) return stop_text();
    if (run_deadline_ && now >= *run_deadline_) return deadline_text();
    if (options_.max_requests != 0 && sent_ >= options_.max_requests) return budget_text();
    slot = now;
    if (interval_.count() > 0) {
      slot = std::max(now, next_slot_);
      if (run_deadline_ && slot >= *run_deadline_) return deadline_text();
      next_slot_ = slot + interval_;
    }
    ++sent_;
  }
  std::this_thread::sleep_until(slot);
  return std::nullopt;
}

milliseconds RequestGate::retry_wait(const Headers& headers, int attempt) {
  const auto cap = std::max(options_.max_retry_wait, milliseconds(0));
  for (const auto& [name, value] : headers) {
    if (!common::iequals_ascii(name, "Retry-After")) continue;
    if (const auto wait = parse_retry_after(value)) return std::min(*wait, cap);
    break;
  }
  const int doublings = std::clamp(attempt - 1, 0, 16);
  const milliseconds base{kFirstBackoff.count() << doublings};
  std::int64_t spread = 0;
  {
    const std::lock_guard lock(mutex_);
    spread = jitter_.between(0, base.count());
  }
  // Half the step plus up to a whole step at random, so clients that failed together spread out.
  return std::min(base / 2 + milliseconds(spread), cap);
}

}  // namespace entimg::contract::detail
