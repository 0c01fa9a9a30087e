#pragma once
// The pages of a collection in order, fetched ahead: what `record` and a live `diff` read. The walk
// asks for limit/offset windows itself (stride apart) rather than following `next`, so that several
// pages can be in flight and a stopped recording can resume at an offset.
#include <cstdint>
#include <deque>
#include <future>
#include <optional>
#include <string>

#include <simdjson.h>

#include "entimg/contract/http.hpp"
#include "entimg/contract/observation.hpp"

namespace entimg::contract::detail {

class PageStream {
 public:
  /// Pages asking `limit` records, `stride` apart from `start`; up to `window` requests in flight.
  PageStream(Client& client, std::string collection_path, std::uint64_t limit, std::uint64_t stride,
             std::uint64_t start, std::size_t window);
  PageStream(const PageStream&) = delete;
  PageStream& operator=(const PageStream&) = delete;
  ~PageStream();

  /// The next page in order, its body parsed. Blocks until it has arrived.
  Page next();
  /// No page at or past this offset is requested any more (the collection's count, once known).
  void stop_at(std::uint64_t end);

 private:
  void fill();
  Client& client_;
  std::string collection_path_;
  std::uint64_t limit_, stride_, next_offset_;
  std::size_t window_;
  std::uint64_t end_ = UINT64_MAX;
  std::deque<std::future<Page>> in_flight_;
};

/// The walk over a whole collection in limit/offset windows, page by page. The first page read decides
/// the stride (the limit, or fewer when the server caps its pages); the walk ends on an empty page or
/// once the offset reaches `count`. A stopped walk is continued by giving the start, stride and count
/// it had reached.
class CollectionWalk {
 public:
  CollectionWalk(Client& client, std::string collection_path, std::uint64_t limit, std::size_t window,
                 std::uint64_t start = 0, std::uint64_t stride = 0, std::uint64_t count = 0);

  /// The next page, checked to be a 200 JSON object with a "results" array and a "count" (a
  /// std::runtime_error says what is wrong otherwise); nullopt once the walk is over.
  std::optional<Page> next();
  std::uint64_t stride() const { return stride_; }
  std::uint64_t next_offset() const { return next_offset_; }
  std::uint64_t count() const { return count_; }

 private:
  simdjson::dom::array check(const Page& page);
  Client& client_;
  std::string collection_path_;
  std::uint64_t limit_;
  std::size_t window_;
  std::uint64_t next_offset_, stride_, count_;
  bool started_ = false, over_ = false;
  std::optional<PageStream> stream_;
};

/// GET collection_path?limit=L&offset=O (offset left out when 0), parsed.
Page fetch_window(Client& client, const std::string& collection_path, std::uint64_t limit,
                  std::uint64_t offset);

}  // namespace entimg::contract::detail
