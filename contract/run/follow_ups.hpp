#pragma once
// What a client asks past the list, besides the pictures (docs/contract.md, "Past the list"): a listed
// record opened on its detail route, the collection path without its trailing slash, a page asked again with
// the validators its answer gave. Each answer is judged by its step's FollowUp rules (checks_client.cpp), and
// a page among them by the page rules too.
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "entimg/contract/checks.hpp"
#include "entimg/contract/http.hpp"

namespace entimg::contract::detail {

class FollowUps {
 public:
  FollowUps(Client& client, const CheckContext& context, Findings& findings);

  /// Opens the records of `page` at these indices (those past its results skipped) on the detail route.
  void open_records(const Page& page, std::span<const std::size_t> indices);
  /// An unknown URL under the API root (/edw/api/no-such-route-N/): its 404 is judged by the rules of error
  /// answers (a debug page, DEBUG = True, shows there first).
  void unknown_url(std::uint64_t seed);
  /// The slashless collection path with limit=9&offset=<offset>, after the slashed one asked directly.
  void slashless(std::uint64_t offset);
  /// `page` asked again with its own validators, and `other` (another page of the collection) and the
  /// browsable HTML of page's URL with page's ETag, one answer held at a time beside `page` (pages may be
  /// near the 64 MiB body cap). Without validators a client cannot revalidate: a note.
  void revalidate(const Page& page, const PageQuery& other);

 private:
  Page ask(const std::string& path, const PageQuery& query, const Headers& headers);

  Client& client_;
  const CheckContext& context_;
  Findings& findings_;
};

/// A full walk's sample of records opened on the detail route (hundreds of them), on threads of their own
/// while the walk goes on: each record is kept as its JSON text and judged against the answer as
/// FollowUps::open_records judges it.
class RecordSample {
 public:
  RecordSample(Client& client, const CheckContext& context, std::size_t threads);
  ~RecordSample();
  RecordSample(const RecordSample&) = delete;
  RecordSample& operator=(const RecordSample&) = delete;

  /// Queues the records of `page` at these indices (waits while many are queued).
  void open(const Page& page, std::span<const std::size_t> indices);
  /// Drops what is queued (the run's deadline came); returns how many were left unopened: those and the ones
  /// dropped before once the budget was spent.
  std::uint64_t stop();
  /// Waits for every queued record and puts what the rules found into `findings`.
  void finish(Findings& findings);

 private:
  struct Ask {
    std::string listed_url;
    std::string record;  // minified JSON
    std::int64_t id = 0;
  };
  void work(std::size_t slot);

  Client& client_;
  const CheckContext& context_;
  std::size_t threads_wanted_;
  std::mutex mutex_;
  std::condition_variable ready_, room_;
  std::deque<Ask> queue_;
  std::uint64_t dropped_ = 0;  // taken from the queue once the run's budget was spent, never opened
  bool closing_ = false;
  std::vector<Findings> found_;
  std::vector<std::thread> threads_;
};

}  // namespace entimg::contract::detail
