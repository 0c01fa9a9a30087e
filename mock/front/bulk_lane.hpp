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

// At most as many answers are held as there are threads (issue 43: 24 clients that never read their
// ?limit=300000 pages held 2.87 GiB): a job takes a slot when it starts, and its answer keeps it until the
// caller calls release() (the answer sent, or its connection closed). A job waits for a thread and a slot, so
// a page nobody has read yet is not computed ahead of it.
class BulkLane {
 public:
  /// Starts `threads` threads, with as many slots (none: run() does the job on the caller's thread).
  explicit BulkLane(std::size_t threads);
  ~BulkLane();
  BulkLane(const BulkLane&) = delete;
  BulkLane& operator=(const BulkLane&) = delete;

  /// Queues a job; jobs start in the order they came, one a thread at a time, each once a slot is free. The
  /// slot stays taken after the job returns, until release().
  void run(std::function<void()> job);
  /// Gives back the slot of a job whose answer is gone (sent whole, or its connection closed).
  void release();
  /// Jobs queued and not started are dropped; those under way finish; the threads end.
  void stop();

 private:
  void work();

  std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> jobs_;
  std::size_t held_ = 0;  // slots taken: jobs under way, and answers not yet released
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

/// The bulk lane's threads for a machine: one for every two cores, at least one.
std::size_t bulk_thread_count();

}  // namespace entimg::mock::detail
