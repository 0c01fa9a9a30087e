#include "pictures.hpp"

#include "entimg/common/ascii.hpp"
#include "entimg/contract/rules.hpp"
#include "json_access.hpp"
#include "picture_types.hpp"
#include "redirects.hpp"

namespace entimg::contract::detail {
namespace {

// Pictures queued before add_page waits: the walk runs ahead of the loads by no more than this.
constexpr std::size_t kQueued = 4096;
// A picture's head is read no further: a deployment that ignores Range sends the whole file, and its
// Content-Length still gives the length.
constexpr std::size_t kHeadBodyCap = 64u << 10;
// Quick mode: records read of the first and the last page (a hostile page may list many more), the most
// picked for a mime_type not seen yet, and the most spread over the other pages (three a page).
constexpr std::uint64_t kEdgeRecords = 12;
constexpr std::uint64_t kSpreadPictures = 8;
constexpr std::uint64_t kTypesPicked = 16;

// The running-sum pick: of `total` offers, exactly `n` are taken, one every total/n (all when n >= total).
bool spread_pick(std::uint64_t& sum, std::uint64_t n, std::uint64_t total) {
  if (total <= n) return true;
  sum += n;
  if (sum < total) return false;
  sum -= total;
  return true;
}

std::string plural(std::uint64_t n, std::string_view word) {
  return std::to_string(n) + " " + std::string(word) + (n == 1 ? "" : "s");
}

}  // namespace

Headers picture_request_headers(bool whole) {
  Headers headers{{"Accept", "image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8"}};
  if (!whole) headers.emplace_back("Range", "bytes=0-" + std::to_string(kPictureHeadBytes - 1));
  return headers;
}

PictureChecks::PictureChecks(Client& client, const CheckContext& context, PicturePlan plan)
    : client_(client), context_(context), plan_(plan) {
  plan_.threads = std::max<std::size_t>(plan_.threads, 1);
}

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

// Quick mode: whether the record at `index` of a page of `listed` records is read. The first and the last
// page's records all (at most kEdgeRecords, spread over a longer page), one of each mime_type not read yet,
// and up to three spread over each other page while kSpreadPictures last; kQuickPictures (or the --images
// sample) in all.
bool PictureChecks::pick_quick(std::size_t index, std::size_t listed, const std::string& type,
                               PagePictures role) {
  const std::uint64_t most = plan_.choice.kind == ImagesChoice::Kind::sample
                                 ? std::min(plan_.choice.sample, kQuickPictures)
                                 : kQuickPictures;
  if (picked_ >= most) return false;
  bool take = false;
  if (role == PagePictures::edge) {
    take = listed <= kEdgeRecords || (index * kEdgeRecords / listed) != ((index + 1) * kEdgeRecords / listed);
  } else if (!types_.contains(type) && types_.size() < kTypesPicked) {
    take = true;
  } else if (spread_picked_ < kSpreadPictures && listed > 0) {
    const std::size_t quarter = std::max<std::size_t>(listed / 4, 1);
    take = index % quarter == quarter / 2 && index / quarter < 3;
    if (take) ++spread_picked_;
  }
  if (take) {
    ++picked_;
    types_.insert(type);
  }
  return take;
}

// Full mode: nullopt when the record's picture is not loaded (--images none, or outside its sample), else
// whether it is read whole: a sample spread over the walk, and the first of each mime_type.
std::optional<bool> PictureChecks::pick_walk(const std::string& type, PagePictures role) {
  const std::uint64_t total = plan_.records == 0 ? std::numeric_limits<std::uint64_t>::max() : plan_.records;
  std::uint64_t chosen = total;
  if (plan_.choice.kind == ImagesChoice::Kind::sample) {
    chosen = std::min(plan_.choice.sample, total);
    if (plan_.records == 0 ? offered_ >= plan_.choice.sample
                           : !spread_pick(sample_sum_, plan_.choice.sample, total))
      return std::nullopt;
  }
  ++offered_;
  const bool first_of_type = !types_.contains(type) && types_.size() < kTypesPicked;
  if (first_of_type) types_.insert(type);
  const bool spread =
      plan_.records == 0 ? offered_ <= kWholeInWalk : spread_pick(whole_sum_, kWholeInWalk, chosen);
  return first_of_type || spread || role == PagePictures::edge;
}

void PictureChecks::add_page(const Page& page, PagePictures role) {
  if (plan_.choice.kind == ImagesChoice::Kind::none || !context_.runs("image_loads")) return;
  const auto records = result_records(page);
  if (!records) return;  // status_ok, json_body and page_schema report it
  const std::size_t listed = records->size();
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
    const std::string type = mime ? common::ascii_lowered(*mime) : std::string();
    std::optional<bool> whole = true;
    if (plan_.walk) {
      whole = pick_walk(type, role);
    } else if (!pick_quick(at, listed, type, role)) {
      whole.reset();
    }
    if (!whole) continue;
    const auto size = member(record.record, "file_size");
    offer({id, std::string(*image), mime ? std::string(*mime) : std::string(), page.exchange.url,
           record_pointer(at, "image"), size ? as_count(*size) : std::nullopt, *whole});
  }
}

// Under mutex_.
void PictureChecks::start_threads() {
  if (!threads_.empty()) return;
  slots_.resize(plan_.threads);
  for (std::size_t slot = 0; slot < plan_.threads; ++slot)
    threads_.emplace_back([this, slot] { work(slot); });
}

void PictureChecks::offer(PictureAsk ask) {
  std::unique_lock lock(mutex_);
  if (!plan_.deferred) start_threads();
  room_.wait(lock, [&] { return queue_.size() < kQueued || closing_; });
  if (closing_) {
    ++left_;
    return;
  }
  whole_ += ask.whole ? 1 : 0;
  queue_.push_back(std::move(ask));
  ++queued_;
  lock.unlock();
  work_ready_.notify_one();
}

void PictureChecks::work(std::size_t slot) {
  const Headers whole = picture_request_headers(true), head = picture_request_headers(false);
  for (;;) {
    std::unique_lock lock(mutex_);
    work_ready_.wait(lock, [&] { return !queue_.empty() || closing_; });
    if (queue_.empty()) return;
    PictureAsk ask = std::move(queue_.front());
    queue_.pop_front();
    const bool spent = !client_.budget_left();  // the deadline or --max-requests: left unchecked, not failed
    if (spent) ++left_;
    lock.unlock();
    room_.notify_one();
    if (spent) continue;
    const Followed got = get_following_redirects(client_, ask.image, ask.whole ? whole : head,
                                                 ask.whole ? kPictureCap : kHeadBodyCap);
    ++requests_;  // a picture counts once against the walk's cap, whatever redirects it took
    for (const HttpExchange& hop : got.hops)
      bytes_ += hop.body.size();
    if (got.answer().failure == FailureKind::deadline || got.answer().attempts == 0) {
      const std::lock_guard relock(mutex_);
      ++left_;
      continue;
    }
    check_picture(context_, ask, got, slots_[slot].found);
    check_error_answer(context_, got.answer(), slots_[slot].found);
    if (auto length = picture_length(ask, got)) slots_[slot].sizes.add(std::move(*length));
  }
}

void PictureChecks::stop() {
  {
    const std::lock_guard lock(mutex_);
    left_ += queue_.size();
    queue_.clear();
    closing_ = true;
  }
  work_ready_.notify_all();
  room_.notify_all();
}

std::uint64_t PictureChecks::unchecked() {
  const std::lock_guard lock(mutex_);
  return queue_.size() + left_;
}

void PictureChecks::finish(Findings& findings) {
  {
    const std::lock_guard lock(mutex_);
    if (!queue_.empty()) start_threads();
    closing_ = true;
  }
  work_ready_.notify_all();
  for (std::thread& t : threads_)
    t.join();
  threads_.clear();
  std::uint64_t failed = 0;
  PictureSizes sizes;
  for (const Slot& s : slots_) {
    findings.merge(s.found);
    failed += s.found.failures().size() + s.found.left_out("image_loads");
    sizes.merge(s.sizes);
  }
  const std::uint64_t asked = queued_ - std::min(queued_, left_), loaded = asked - std::min(asked, failed);
  if (queued_ > 0)
    findings.note("image_loads", plural(asked, "picture") + " asked (" +
                                     std::to_string(std::min(whole_, queued_)) +
                                     " read whole, the rest by their first bytes): " +
                                     (loaded == 0 ? std::string("none") : std::to_string(loaded)) +
                                     " loaded" + (failed ? ", " + std::to_string(failed) + " failed" : ""));
  if (left_ > 0)
    findings.note("image_loads", plural(left_, "picture") +
                                     " left unchecked: the run stopped before they were asked (--deadline, "
                                     "--max-requests or a signal)");
  if (elsewhere_ > 0)
    findings.note("image_loads", plural(elsewhere_, "picture") + " not loaded: on another origin than " +
                                     context_.origin + " (link_origin's to judge)");
  settle_picture_sizes(sizes, findings);
}

}  // namespace entimg::contract::detail
