#pragma once
// The one engine that fetches pages ahead, on several threads, and hands them out in order: the full
// walk of a check run (runner.cpp) and the windows of `record` and a live `diff` (page_stream.cpp).
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <limits>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include "entimg/contract/checks.hpp"
#include "entimg/contract/observation.hpp"

namespace entimg::contract::detail {

/// Bytes of fetched-ahead bodies held before the workers wait for the consumer, the body it awaits
/// aside (a window of ordinary pages is far less; pages near the body cap are not piled up a window deep).
inline constexpr std::uint64_t kReadyBytes = 32u << 20;

/// A page as a worker made it: fetched, and judged when the caller's fetch judges it.
struct Fetched {
  Page page;
  Findings findings;
};

/// Runs fetch(0), fetch(1), … on `threads` threads, at most `window` items ahead of the one next() hands
/// out next, and returns them in order. Work on the workers (a page's rules) runs in parallel; the
/// consumer sees one item at a time. Destroying it stops the workers (a fetch under way finishes).
///
/// With a `judge`, each fetched item is judged by it on `judges` threads of their own before next() hands
/// it out: a fetching thread then sends its next request while the page it fetched is being judged, so the
/// server works on one page while the pages before it are checked, instead of the two taking turns.
class FetchAhead {
 public:
  using Fetch = std::function<Fetched(std::uint64_t index)>;
  using Judge = std::function<void(Fetched& item)>;
  FetchAhead(Fetch fetch, std::size_t threads, std::size_t window,
             std::uint64_t end = std::numeric_limits<std::uint64_t>::max(), Judge judge = {},
             std::size_t judges = 0);
  ~FetchAhead();
  FetchAhead(const FetchAhead&) = delete;
  FetchAhead& operator=(const FetchAhead&) = delete;

  /// The next item in order; blocks until it is there. One at or past `end` is fetched on the
  /// caller's thread, nothing ahead of it.
  Fetched next();
  /// No index at or past `end` is started any more (raising it again lets the workers go on).
  void stop_at(std::uint64_t end);

 private:
  struct Slot {
    Fetched item;
    std::exception_ptr error;  // what fetch threw, rethrown by next()
  };
  void work();
  void judge_work();
  bool may_start() const;  // with mutex_ held
  void start_thread(void (FetchAhead::*body)());

  Fetch fetch_;
  Judge judge_;
  std::size_t window_;
  std::mutex mutex_;
  // One for each kind of waiter, so that each change wakes only those it concerns.
  std::condition_variable can_start_;      // fetching threads: the window moved, or stop
  std::condition_variable to_judge_;       // judging threads: an item was fetched, or stop
  std::condition_variable is_ready_;       // next(): an item is ready
  std::map<std::uint64_t, Slot> fetched_;  // fetched, waiting for a judging thread (with a judge)
  std::map<std::uint64_t, Slot> ready_;
  std::uint64_t end_;
  std::uint64_t started_ = 0;   // the next index a worker takes
  std::uint64_t consumed_ = 0;  // the index next() hands out next
  std::uint64_t ready_bytes_ = 0;
  bool stop_ = false;
  std::vector<std::thread> workers_;  // last: they start once the rest is built
};

}  // namespace entimg::contract::detail
