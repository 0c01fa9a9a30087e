#include "entimg/mock/faults.hpp"

#include <mutex>

#include "entimg/common/ascii.hpp"
#include "entimg/common/prng.hpp"
#include "fault_statuses.hpp"
#include "flags.hpp"

namespace entimg::mock {

struct FaultPlanner::State {
  std::mutex mutex;
  common::Pcg32 rng;
  explicit State(std::uint64_t seed) : rng(common::mix64(seed ^ 0x6661756c7473ULL), 0x6d6f636bULL) {}
};

FaultPlanner::FaultPlanner(FaultOptions options)
    : options_(options), state_(std::make_shared<State>(options.seed)) {}

namespace {

// A plan that answers 400 saying which X-Mock-* header was wrong and how.
Plan refuse(const std::string& message) {
  HttpResponse r;
  r.status = 400;
  r.content_type = "text/plain; charset=utf-8";
  r.body = message + "\n";
  r.passed = DjangoMiddleware::none;  // the mock's own refusal
  Plan p;
  p.refusal = std::move(r);
  return p;
}

double unit(common::Pcg32& rng) {
  return static_cast<double>(rng.next_u32()) / 4294967296.0;
}

}  // namespace

FaultOptions FaultPlanner::options() const {
  const std::lock_guard lock(state_->mutex);
  return options_;
}

void FaultPlanner::replace(FaultOptions options) {
  const std::lock_guard lock(state_->mutex);
  options_ = options;
  state_->rng = State(options.seed).rng;
}

Plan FaultPlanner::plan(const HttpRequest& request) {
  FaultOptions o;
  {
    const std::lock_guard lock(state_->mutex);
    o = options_;
  }
  Plan p;
  p.slow_body_bps = o.slow_body_bps;
  p.delay = std::chrono::milliseconds(o.latency_ms);
  if (o.drop_rate > 0 || o.fail_rate > 0 || o.jitter_ms > 0) {
    double drop = 0, fail = 0;
    std::uint32_t jitter = 0;
    {
      const std::lock_guard lock(state_->mutex);  // three draws a request, in arrival order
      drop = unit(state_->rng);
      fail = unit(state_->rng);
      jitter = o.jitter_ms > 0 ? state_->rng.below(o.jitter_ms + 1) : 0;
    }
    p.drop = drop < o.drop_rate;
    if (!p.drop && fail < o.fail_rate) p.fail_status = o.fail_status;
    p.delay += std::chrono::milliseconds(jitter);
  }
  // One request can ask for exactly what it wants.
  if (const auto v = request.header("X-Mock-Latency")) {
    const auto ms = common::digits(*v);
    if (!ms) return refuse("X-Mock-Latency: expected a whole number of milliseconds, got '" + *v + "'");
    if (*ms > o.max_delay_ms)
      return refuse("X-Mock-Latency: " + *v + " ms is longer than the mock holds an answer, " +
                    std::to_string(o.max_delay_ms) + " ms (--max-delay)");
    p.delay = std::chrono::milliseconds(*ms);
  }
  if (const auto v = request.header("X-Mock-Fail")) {
    if (*v == "none" || *v == "0") {
      p.fail_status.reset();
    } else if (const detail::FaultStatus* row = detail::find_fault_status(*v)) {
      p.fail_status = row->status;
      p.drop = false;
    } else {
      return refuse("X-Mock-Fail: expected " + detail::fault_status_choices("none") + ", got '" + *v + "'");
    }
  }
  if (const auto v = request.header("X-Mock-Drop")) {
    if (*v != "0" && *v != "1") return refuse("X-Mock-Drop: expected 1 or 0, got '" + *v + "'");
    p.drop = *v == "1";
  }
  if (const auto v = request.header("X-Mock-Slow-Body")) {
    const auto bps = common::digits(*v, detail::kMaxBytesPerSecond);
    if (!bps)
      return refuse("X-Mock-Slow-Body: expected bytes a second from 0 to " +
                    std::to_string(detail::kMaxBytesPerSecond) + ", got '" + *v + "'");
    p.slow_body_bps = *bps;
  }
  return p;
}

}  // namespace entimg::mock
