#pragma once
// The pictures of the records a run lists, loaded as a browser loads them and judged by image_loads.
// Quick mode: a bounded sample (every record of the first and the last page, one record of every mime_type
// seen, a few spread over the other pages; at most kQuickPictures), each read whole and judged to its end.
// Full mode: every walked record's picture by its head (Range: bytes=0-1023: status, type, signature, the
// length its headers give against file_size) and a sample spread over the walk read whole. Their own threads
// load them while the run goes on; a record seen again (by id) is not loaded twice.
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "entimg/contract/checks.hpp"
#include "entimg/contract/http.hpp"
#include "entimg/contract/runner.hpp"

namespace entimg::contract::detail {

/// The most pictures a quick run loads (each whole).
inline constexpr std::uint64_t kQuickPictures = 40;
/// Pictures a full walk reads whole, spread over it, besides one of each mime_type.
inline constexpr std::uint64_t kWholeInWalk = 40;
/// The most bytes of one picture read whole; a larger one is judged by its first bytes, with a note.
inline constexpr std::size_t kPictureCap = std::size_t{16} << 20;

/// The headers a browser's <img> sends; with `whole` false, a Range for the picture's head.
Headers picture_request_headers(bool whole);

/// Which records of a page are read whole: every one (the first and the last page in quick mode, the last
/// page of a walk), or a few spread.
enum class PagePictures { edge, spread };

/// How a run loads pictures.
struct PicturePlan {
  bool walk = false;  ///< a full walk's (every record's head, a sample whole), else the quick sample
  ImagesChoice choice;
  std::size_t threads = 2;
  std::uint64_t records =
      0;  ///< walk: how many records will be offered (its count), for spreading; 0: unknown
  /// Loaded only once finish() is called (the quick plan's: no picture read whole, up to kPictureCap, is held
  /// beside the plan's pages, which may be near the 64 MiB body cap).
  bool deferred = false;
};

class PictureChecks {
 public:
  PictureChecks(Client& client, const CheckContext& context, PicturePlan plan);
  ~PictureChecks();
  PictureChecks(const PictureChecks&) = delete;
  PictureChecks& operator=(const PictureChecks&) = delete;

  /// Queues the pictures of the page's records the plan picks (waits while many are queued). From one
  /// thread at a time.
  void add_page(const Page& page, PagePictures role = PagePictures::spread);
  /// Stops loading: what is queued is left unchecked (the run's deadline came).
  void stop();
  /// Waits for every queued picture and puts what image_loads found into `findings`, with a note of how
  /// many pictures were asked, loaded and failed (and left unchecked), and file_size settled.
  void finish(Findings& findings);
  /// Pictures asked (each once, redirects aside) and body bytes read so far (the walk's caps count them).
  std::uint64_t requests() const { return requests_.load(); }
  std::uint64_t bytes() const { return bytes_.load(); }
  /// Pictures left unchecked so far: queued and not yet asked, or dropped unasked once the run's budget was
  /// spent (a stopped run reports them).
  std::uint64_t unchecked();

 private:
  bool pick_quick(std::size_t index, std::size_t listed, const std::string& type, PagePictures role);
  std::optional<bool> pick_walk(const std::string& type, PagePictures role);
  void offer(PictureAsk ask);
  void start_threads();
  void work(std::size_t slot);

  Client& client_;
  const CheckContext& context_;
  PicturePlan plan_;
  std::uint64_t offered_ = 0;  // records offered so far
  std::uint64_t sample_sum_ = 0, whole_sum_ = 0;
  std::uint64_t picked_ = 0, spread_picked_ = 0;  // quick
  std::uint64_t queued_ = 0, whole_ = 0;
  std::uint64_t elsewhere_ = 0;  // images on another origin, not loaded
  IdSet seen_;
  std::set<std::string> types_;  // the mime_types a picture was read whole for

  std::mutex mutex_;
  std::condition_variable work_ready_, room_;
  std::deque<PictureAsk> queue_;
  bool closing_ = false;
  std::uint64_t left_ = 0;  // dropped by stop() or not sent (budget, deadline)
  std::atomic<std::uint64_t> requests_{0}, bytes_{0};
  struct Slot {
    Findings found;
    PictureSizes sizes;
  };
  std::vector<Slot> slots_;  // one per thread
  std::vector<std::thread> threads_;
};

}  // namespace entimg::contract::detail
