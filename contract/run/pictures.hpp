#pragma once
// The pictures of the records a run lists, loaded as a browser loads them and judged by image_loads: the
// quick plan's pages' in quick mode, the walk's in full mode (--images all, sample:N or none). A few
// threads load them while the run goes on; a record seen again (by id) is not loaded twice.
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

#include "entimg/contract/checks.hpp"
#include "entimg/contract/http.hpp"
#include "entimg/contract/runner.hpp"

namespace entimg::contract::detail {

/// The headers a browser's <img> sends, and the bytes image_loads reads: Range asks for no more.
Headers picture_request_headers();

class PictureChecks {
 public:
  /// `records`: how many records will be offered (the walk's count), so that a sample spreads over them;
  /// 0 when unknown (a sample is then the first ones).
  PictureChecks(Client& client, const CheckContext& context, ImagesChoice choice, std::size_t threads,
                std::uint64_t records = 0);
  ~PictureChecks();
  PictureChecks(const PictureChecks&) = delete;
  PictureChecks& operator=(const PictureChecks&) = delete;

  /// Queues the pictures of the page's records (waits while many are queued). From one thread at a time.
  void add_page(const Page& page);
  /// Waits for every queued picture and puts what image_loads found into `findings`, with a note of how
  /// many pictures were loaded and which failed.
  void finish(Findings& findings);

 private:
  void offer(PictureAsk ask);
  bool chosen();
  void work(std::size_t slot);

  Client& client_;
  const CheckContext& context_;
  ImagesChoice choice_;
  std::size_t threads_wanted_;
  std::uint64_t records_;
  std::uint64_t offered_ = 0;     // records offered so far, for a sample of a walk of unknown length
  std::uint64_t sample_sum_ = 0;  // for a sample spread over records_: see chosen()
  std::uint64_t queued_ = 0;
  std::uint64_t elsewhere_ = 0;  // images on another origin, not loaded
  IdSet seen_;

  std::mutex mutex_;
  std::condition_variable work_ready_, room_;
  std::deque<PictureAsk> queue_;
  bool closing_ = false;
  std::vector<Findings> found_;  // one per thread
  std::vector<std::thread> threads_;
};

}  // namespace entimg::contract::detail
