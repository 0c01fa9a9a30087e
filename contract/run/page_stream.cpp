#include "page_stream.hpp"

#include <algorithm>
#include <stdexcept>

#include "json_access.hpp"
#include "json_parse.hpp"
#include "query.hpp"

namespace entimg::contract::detail {

CollectionWalk::CollectionWalk(Client& client, std::string collection_path, std::uint64_t limit,
                               std::size_t window, std::uint64_t start, std::uint64_t stride,
                               std::uint64_t count)
    : client_(client),
      collection_path_(std::move(collection_path)),
      limit_(limit),
      window_(window),
      next_offset_(start),
      stride_(stride),
      count_(count),
      started_(stride != 0) {
  over_ = started_ && next_offset_ >= count_;
}

JsonArray CollectionWalk::check(const Page& page) {
  const std::string& url = page.exchange.url;
  if (page.exchange.status != 200) {
    throw std::runtime_error("GET " + url + " answered " +
                             (page.exchange.status == 0
                                  ? (page.exchange.error.empty() ? "nothing" : page.exchange.error)
                                  : "status " + std::to_string(page.exchange.status)));
  }
  if (!page.json || !page.json->is_object())
    throw std::runtime_error("GET " + url + ": the body is not a JSON object" +
                             (page.json_error.empty() ? "" : " (" + page.json_error + ")"));
  const auto results = results_array(page);
  const auto count = as_count(member(*page.json, "count"));
  if (!results || !count)
    throw std::runtime_error("GET " + url +
                             ": no \"results\" array or no \"count\"; not a page of the endpoint");
  count_ = *count;
  return *results;
}

std::optional<Page> CollectionWalk::next() {
  if (over_) return std::nullopt;
  Page page;
  if (!started_) {
    page = fetch_page(client_, collection_path_, window_query(limit_, next_offset_));
    const std::size_t size = count_of(check(page));
    stride_ = size == 0 || size >= limit_ || size >= count_ ? limit_ : size;
    started_ = true;
  } else {
    const std::uint64_t stride = std::max<std::uint64_t>(stride_, 1);
    if (!ahead_) {
      ahead_start_ = next_offset_;
      ahead_.emplace(
          [this, stride, start = next_offset_](std::uint64_t index) {
            return Fetched{
                fetch_page(client_, collection_path_, window_query(limit_, start + index * stride)), {}};
          },
          window_, window_);
    }
    // No window at or past count is asked for ahead: the index of the first offset ≥ count.
    const std::uint64_t left = count_ > ahead_start_ ? count_ - ahead_start_ : 0;
    ahead_->stop_at(left / stride + (left % stride != 0));
    page = std::move(ahead_->next().page);
  }
  const std::size_t size = count_of(check(page));
  next_offset_ += stride_;
  over_ = size == 0 || next_offset_ >= count_;
  return page;
}

}  // namespace entimg::contract::detail
