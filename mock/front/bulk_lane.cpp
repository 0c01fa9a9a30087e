#include "bulk_lane.hpp"

#include <algorithm>
#include <utility>

namespace entimg::mock::detail {

BulkLane::BulkLane(std::size_t threads) {
  for (std::size_t i = 0; i < threads; ++i)
    threads_.emplace_back([this] { work(); });
}

BulkLane::~BulkLane() {
  stop();
}

void BulkLane::run(std::function<void()> job) {
  if (threads_.empty()) {
    {
      const std::lock_guard lock(mutex_);
      ++held_;
    }
    return job();
  }
  {
    const std::lock_guard lock(mutex_);
    if (stopping_) return;
    jobs_.push_back(std::move(job));
  }
  cv_.notify_one();
}

void BulkLane::release() {
  {
    const std::lock_guard lock(mutex_);
    if (held_ > 0) --held_;
  }
  cv_.notify_one();
}

void BulkLane::stop() {
  {
    const std::lock_guard lock(mutex_);
    stopping_ = true;
    jobs_.clear();
  }
  cv_.notify_all();
  for (auto& thread : threads_)
    if (thread.joinable()) thread.join();
}

void BulkLane::work() {
  for (;;) {
    std::function<void()> job;
    {
      std::unique_lock lock(mutex_);
      cv_.wait(lock, [this] { return stopping_ || (!jobs_.empty() && held_ < threads_.size()); });
      if (stopping_) return;
      job = std::move(jobs_.front());
      jobs_.pop_front();
      ++held_;
    }
    job();
  }
}

std::size_t bulk_thread_count() {
  return std::max(1u, std::thread::hardware_concurrency() / 2);
}

}  // namespace entimg::mock::detail
