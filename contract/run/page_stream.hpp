#pragma once
// The pages of a collection in order, fetched ahead (fetch_ahead.hpp): what `record` and a live `diff`
// read. The walk asks for limit/offset windows itself (stride apart) rather than following `next`, so
// that several pages can be in flight and a stopped recording can resume at an offset.
#include <cstdint>
#include <optional>
#include <string>

#include <simdjson.h>

#include "entimg/contract/http.hpp"
#include "entimg/contract/observation.hpp"
#include "fetch_ahead.hpp"

namespace entimg::contract::detail {

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
  std::optional<FetchAhead> ahead_;  // the pages after the first, `window` in flight
  std::uint64_t ahead_start_ = 0;    // the offset of ahead_'s index 0
};

}  // namespace entimg::contract::detail
