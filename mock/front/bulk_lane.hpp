#pragma once
// Where answers too big for a worker are computed (issue 36: four ?limit=300000&format=api pages took every
// worker, and an ordinary GET waited 22 s): a few threads of their own, taking jobs in turn, so the workers
// stay free for cheap requests. Not niced: a nice value counts against every process on the machine, so on
// a busy one even a small bulk answer (?limit= above 1000 on a 250-record collection) would wait behind
// others' work. docs/mock.md, "Connections".
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace entimg::mock::detail {

class BulkLane {
 public:
  /// Starts `threads` threads (none: run() does the job on the caller's thread).
  explicit BulkLane(std::size_t threads);
  ~BulkLane();
  BulkLane(const BulkLane&) = delete;
  BulkLane& operator=(const BulkLane&) = delete;

  /// Queues a job; jobs start in the order they came, one a thread at a time.
  void run(std::function<void()> job);
  /// Jobs queued and not started are dropped; those under way finish; the threads end.
  void stop();

 private:
  void work();

  std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> jobs_;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

/// The bulk lane's threads for a machine: one for every two cores, at least one.
std::size_t bulk_thread_count();

}  // namespace entimg::mock::detail
