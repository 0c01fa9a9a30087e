#include "page_stream.hpp"

#include <stdexcept>

#include "json_access.hpp"
#include "json_parse.hpp"
#include "query.hpp"

namespace entimg::contract::detail {

Page fetch_window(Client& client, const std::string& collection_path, std::uint64_t limit,
                  std::uint64_t offset) {
  Page page;
  page.sent = {{"limit", std::to_string(limit)}};
  if (offset > 0) page.sent.emplace_back("offset", std::to_string(offset));
  page.effective_limit = limit;
  page.effective_offset = offset;
  page.exchange = client.request("GET", path_with_query(collection_path, page.sent));
  if (page.exchange.status == 200) parse_body(page);
  return page;
}

PageStream::PageStream(Client& client, std::string collection_path, std::uint64_t limit, std::uint64_t stride,
                       std::uint64_t start, std::size_t window)
    : client_(client),
      collection_path_(std::move(collection_path)),
      limit_(limit),
      stride_(stride == 0 ? 1 : stride),
      next_offset_(start),
      window_(window == 0 ? 1 : window) {}

PageStream::~PageStream() {
  for (auto& f : in_flight_)
    if (f.valid()) f.wait();
}

void PageStream::stop_at(std::uint64_t end) {
  end_ = end;
}

void PageStream::fill() {
  while (in_flight_.size() < window_ && next_offset_ < end_) {
    const std::uint64_t offset = next_offset_;
    next_offset_ += stride_;
    in_flight_.push_back(std::async(std::launch::async, [this, offset] {
      return fetch_window(client_, collection_path_, limit_, offset);
    }));
  }
}

Page PageStream::next() {
  fill();
  if (in_flight_.empty()) {  // asked at or past stop_at: fetched now, nothing ahead
    const std::uint64_t offset = next_offset_;
    next_offset_ += stride_;
    return fetch_window(client_, collection_path_, limit_, offset);
  }
  Page page = in_flight_.front().get();
  in_flight_.pop_front();
  fill();
  return page;
}

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
    page = fetch_window(client_, collection_path_, limit_, next_offset_);
    const std::size_t size = count_of(check(page));
    stride_ = size == 0 || size >= limit_ || size >= count_ ? limit_ : size;
    started_ = true;
  } else {
    if (!stream_) stream_.emplace(client_, collection_path_, limit_, stride_, next_offset_, window_);
    stream_->stop_at(count_);
    page = stream_->next();
  }
  const std::size_t size = count_of(check(page));
  next_offset_ += stride_;
  over_ = size == 0 || next_offset_ >= count_;
  return page;
}

}  // namespace entimg::contract::detail
