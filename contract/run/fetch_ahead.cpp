#include "fetch_ahead.hpp"

#include <algorithm>
#include <system_error>

#include "http_detail.hpp"

namespace entimg::contract::detail {

FetchAhead::FetchAhead(Fetch fetch, std::size_t threads, std::size_t window, std::uint64_t end, Judge judge,
                       std::size_t judges)
    : fetch_(std::move(fetch)),
      judge_(std::move(judge)),
      window_(std::max<std::size_t>(window, 1)),
      end_(end) {
  for (std::size_t t = 0; t < std::max<std::size_t>(threads, 1); ++t)
    start_thread(&FetchAhead::work);
  if (judge_)
    for (std::size_t t = 0; t < std::max<std::size_t>(judges, 1); ++t)
      start_thread(&FetchAhead::judge_work);
}

void FetchAhead::start_thread(void (FetchAhead::*body)()) {
  workers_.emplace_back([this, body] {
    // On a thread with a request's big stack, so the requests fetch() sends run right here instead of
    // being handed to one (run_on_big_stack); on this thread when no such thread can be made.
    bool ran = false;
    try {
      run_on_big_stack([this, body, &ran] {
        ran = true;
        (this->*body)();
      });
    } catch (const std::system_error&) {
      if (ran) throw;
    }
    if (!ran) (this->*body)();
  });
}

FetchAhead::~FetchAhead() {
  {
    const std::lock_guard lock(mutex_);
    stop_ = true;
  }
  can_start_.notify_all();
  to_judge_.notify_all();
  for (auto& worker : workers_)
    worker.join();
}

void FetchAhead::stop_at(std::uint64_t end) {
  {
    const std::lock_guard lock(mutex_);
    end_ = end;
  }
  can_start_.notify_all();
}

// Within the window, and past kReadyBytes of waiting bodies only the item the consumer awaits.
bool FetchAhead::may_start() const {
  return started_ < end_ && started_ < consumed_ + window_ &&
         (ready_bytes_ < kReadyBytes || started_ == consumed_);
}

void FetchAhead::work() {
  for (;;) {
    std::uint64_t index = 0;
    {
      std::unique_lock lock(mutex_);
      can_start_.wait(lock, [&] { return stop_ || may_start(); });
      if (stop_) return;
      index = started_++;
    }
    Slot slot;
    try {
      slot.item = fetch_(index);
    } catch (...) {
      slot.error = std::current_exception();
    }
    {
      const std::lock_guard lock(mutex_);
      ready_bytes_ += slot.item.page.exchange.body.size();
      (judge_ ? fetched_ : ready_).emplace(index, std::move(slot));
    }
    (judge_ ? to_judge_ : is_ready_).notify_one();
  }
}

// Judges fetched items, the earliest first (the consumer awaits it), and makes them ready.
void FetchAhead::judge_work() {
  for (;;) {
    std::uint64_t index = 0;
    Slot slot;
    {
      std::unique_lock lock(mutex_);
      to_judge_.wait(lock, [&] { return stop_ || !fetched_.empty(); });
      if (stop_) return;
      auto first = fetched_.begin();
      index = first->first;
      slot = std::move(first->second);
      fetched_.erase(first);
    }
    if (!slot.error) {
      try {
        judge_(slot.item);
      } catch (...) {
        slot.error = std::current_exception();
      }
    }
    {
      const std::lock_guard lock(mutex_);
      ready_.emplace(index, std::move(slot));
    }
    is_ready_.notify_one();
  }
}

Fetched FetchAhead::next() {
  std::unique_lock lock(mutex_);
  const std::uint64_t index = consumed_;
  if (index >= started_ && index >= end_) {  // no worker has it or will: fetched here, nothing ahead
    started_ = consumed_ = index + 1;
    lock.unlock();
    Fetched item = fetch_(index);
    if (judge_) judge_(item);
    return item;
  }
  is_ready_.wait(lock, [&] { return ready_.contains(index); });
  auto found = ready_.find(index);
  Slot slot = std::move(found->second);
  ready_.erase(found);
  ready_bytes_ -= slot.item.page.exchange.body.size();
  consumed_ = index + 1;
  lock.unlock();
  can_start_.notify_all();
  if (slot.error) std::rethrow_exception(slot.error);
  return std::move(slot.item);
}

}  // namespace entimg::contract::detail
