#include "pictures.hpp"

#include "entimg/contract/rules.hpp"
#include "json_access.hpp"
#include "picture_types.hpp"
#include "redirects.hpp"

namespace entimg::contract::detail {
namespace {

// Pictures queued before add_page waits: the walk runs ahead of the loads by no more than this.
constexpr std::size_t kQueued = 4096;
// A picture's body is read no further: a deployment that ignores Range sends the whole file.
constexpr std::size_t kPictureBodyCap = 256u << 10;

}  // namespace

Headers picture_request_headers() {
  return {{"Accept", "image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8"},
          {"Range", "bytes=0-" + std::to_string(kPictureHeadBytes - 1)}};
}

PictureChecks::PictureChecks(Client& client, const CheckContext& context, ImagesChoice choice,
                             std::size_t threads, std::uint64_t records)
    : client_(client),
      context_(context),
      choice_(choice),
      threads_wanted_(std::max<std::size_t>(threads, 1)),
      records_(records) {}

PictureChecks::~PictureChecks() {
  {
    const std::lock_guard lock(mutex_);
    closing_ = true;
    queue_.clear();
  }
  work_ready_.notify_all();
  room_.notify_all();
  for (std::thread& t : threads_)
    t.join();
}

// Whether the record offered now is one the choice loads: all, none, or a sample of choice_.sample spread
// evenly over records_: a running sum gains n a record and takes one each time it passes the total, so
// exactly n of the first `total` records are taken, one every total/n (a sample of a walk of unknown length
// is its first n records).
bool PictureChecks::chosen() {
  switch (choice_.kind) {
    case ImagesChoice::Kind::all:
      return true;
    case ImagesChoice::Kind::none:
      return false;
    case ImagesChoice::Kind::sample:
      if (records_ <= choice_.sample) return offered_++ < choice_.sample;
      sample_sum_ += choice_.sample;
      if (sample_sum_ < records_) return false;
      sample_sum_ -= records_;
      return true;
  }
  return false;
}

void PictureChecks::add_page(const Page& page) {
  if (choice_.kind == ImagesChoice::Kind::none || !context_.runs("image_loads")) return;
  const auto records = result_records(page);
  if (!records) return;  // status_ok, json_body and page_schema report it
  std::size_t index = 0;
  for (const RecordMembers& record : *records) {
    const std::size_t at = index++;
    const auto id = record_id(record);
    const auto image = as_string(record.image());
    const auto mime = as_string(record.mime_type());
    // A record without a string image is record_schema's; one seen before is loaded once.
    if (!image || (id && !seen_.insert(*id))) continue;
    // An image on another origin than the deployment's is link_origin's failure, and like a link there it is
    // never contacted (a redirect from the deployment's origin to a CDN is followed).
    if (origin_of(*image) != context_.origin) {
      ++elsewhere_;
      continue;
    }
    if (!chosen()) continue;
    offer({id, std::string(*image), mime ? std::string(*mime) : std::string(), page.exchange.url,
           record_pointer(at, "image")});
  }
}

void PictureChecks::offer(PictureAsk ask) {
  std::unique_lock lock(mutex_);
  if (threads_.empty()) {
    found_.resize(threads_wanted_);
    for (std::size_t slot = 0; slot < threads_wanted_; ++slot)
      threads_.emplace_back([this, slot] { work(slot); });
  }
  room_.wait(lock, [&] { return queue_.size() < kQueued || closing_; });
  queue_.push_back(std::move(ask));
  ++queued_;
  lock.unlock();
  work_ready_.notify_one();
}

void PictureChecks::work(std::size_t slot) {
  const Headers headers = picture_request_headers();
  for (;;) {
    std::unique_lock lock(mutex_);
    work_ready_.wait(lock, [&] { return !queue_.empty() || closing_; });
    if (queue_.empty()) return;
    PictureAsk ask = std::move(queue_.front());
    queue_.pop_front();
    lock.unlock();
    room_.notify_one();
    const Followed got = get_following_redirects(client_, ask.image, headers, kPictureBodyCap);
    check_picture(context_, ask, got, found_[slot]);
  }
}

void PictureChecks::finish(Findings& findings) {
  {
    const std::lock_guard lock(mutex_);
    closing_ = true;
  }
  work_ready_.notify_all();
  for (std::thread& t : threads_)
    t.join();
  threads_.clear();
  std::uint64_t failed = 0;
  for (const Findings& f : found_) {
    findings.merge(f);
    failed += f.failures().size() + f.left_out("image_loads");
  }
  if (queued_ > 0)
    findings.note("image_loads", std::to_string(queued_) + " picture" + (queued_ == 1 ? "" : "s") +
                                     " loaded" + (failed ? ", " + std::to_string(failed) + " failed" : ""));
  if (elsewhere_ > 0)
    findings.note("image_loads", std::to_string(elsewhere_) + " picture" + (elsewhere_ == 1 ? "" : "s") +
                                     " not loaded: on another origin than " + context_.origin +
                                     " (link_origin's to judge)");
}

}  // namespace entimg::contract::detail
