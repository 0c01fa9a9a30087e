#include "churn.hpp"

#include <algorithm>
#include <cstdio>

#include "entimg/common/prng.hpp"

namespace entimg::mock::detail {

namespace {

thread_local std::optional<std::uint64_t> request_ms;

// The state is recomputed when it changes; this bounds its size (and the work) however long the mock runs.
constexpr std::uint64_t kMaxChanges = 100'000;
constexpr std::uint64_t kMaxMs = 10ULL * 365 * 24 * 3600 * 1000;  // ten years

std::int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// Draw i of stream s: a 64-bit value fixed by (seed, s, i).
std::uint64_t draw(std::uint64_t seed, std::uint64_t stream, std::uint64_t i) {
  return common::mix64(common::mix64(seed ^ (stream * 0x9E3779B97F4A7C15ULL)) + i);
}

// How many changes a rate has made by `ms`.
std::uint64_t changes(std::uint32_t per_minute, std::uint64_t ms) {
  return std::min(kMaxChanges, per_minute * (ms / 60000) + per_minute * (ms % 60000) / 60000);
}

std::string uuid4_text(std::uint64_t high, std::uint64_t low) {
  high = (high & ~0xF000ULL) | 0x4000ULL;            // version 4
  low = (low & ~(0xC0ULL << 56)) | (0x80ULL << 56);  // RFC 4122 variant
  char text[37];
  std::snprintf(
      text, sizeof text, "%08llx-%04llx-%04llx-%04llx-%012llx", static_cast<unsigned long long>(high >> 32),
      static_cast<unsigned long long>((high >> 16) & 0xFFFF), static_cast<unsigned long long>(high & 0xFFFF),
      static_cast<unsigned long long>(low >> 48), static_cast<unsigned long long>(low & 0xFFFFFFFFFFFFULL));
  return text;
}

}  // namespace

void set_request_time(std::optional<std::uint64_t> ms) {
  request_ms = ms;
}

ChurnDataset::ChurnDataset(std::shared_ptr<const Dataset> base, ChurnRate rate, std::uint64_t seed)
    : base_(std::move(base)),
      rate_(rate),
      seed_(seed),
      base_count_(base_->count({})),
      base_max_id_(base_->max_id()),
      insert_order_(0),
      start_ns_(now_ns()) {
  std::vector<Record> first;
  base_->page({}, 0, 1, first);
  if (!first.empty()) insert_order_ = first.front().order - 1;
}

void ChurnDataset::restart() const {
  start_ns_ = now_ns();
}

// The timeline up to `inserts` and `deletes` changes, grown (to twice what was there, at least) when a moment
// needs more; under cache_mutex_.
std::shared_ptr<const ChurnDataset::Timeline> ChurnDataset::timeline_for(std::uint64_t inserts,
                                                                         std::uint64_t deletes) const {
  if (timeline_ && timeline_->insert_entities.size() >= inserts &&
      timeline_->deleted_in_order.size() >= deletes)
    return timeline_;
  auto grown = timeline_ ? std::make_shared<Timeline>(*timeline_) : std::make_shared<Timeline>();
  const auto target = [](std::size_t have, std::uint64_t need, std::uint64_t most) {
    return need <= have ? have : std::min<std::uint64_t>(most, std::max<std::uint64_t>(need, 2 * have));
  };
  const std::uint64_t most_deletes = std::min(base_count_, kMaxChanges);
  const std::uint64_t delete_to = target(grown->deleted_in_order.size(), deletes, most_deletes);
  // The j-th delete removes a record still there, drawn from the base: the same ones at every replay.
  std::vector<Record> one;
  for (std::uint64_t j = grown->deleted_in_order.size() + 1; j <= delete_to; ++j) {
    for (std::uint64_t attempt = 0;; ++attempt) {
      const std::uint64_t p = draw(seed_, 2 + attempt * 16, j) % base_count_;
      if (!grown->gone.insert(p).second) continue;
      grown->deleted_in_order.push_back(p);
      one.clear();
      base_->page({}, p, 1, one);
      grown->by_position.emplace_back(p, j);
      grown->by_id.emplace_back(one.empty() ? 0 : one.front().id, j);
      break;
    }
  }
  std::sort(grown->by_position.begin(), grown->by_position.end());
  std::sort(grown->by_id.begin(), grown->by_id.end());
  const std::uint64_t insert_to = target(grown->insert_entities.size(), inserts, kMaxChanges);
  for (std::uint64_t i = grown->insert_entities.size() + 1; i <= insert_to; ++i)
    grown->insert_entities.push_back(inserted(i).entity);
  timeline_ = std::move(grown);
  return timeline_;
}

// A moment's state is its prefix of the timeline: one pass over it, whatever moment came before.
std::shared_ptr<const ChurnDataset::State> ChurnDataset::state_now() const {
  const std::uint64_t ms = std::min(kMaxMs, request_ms ? *request_ms
                                                       : static_cast<std::uint64_t>(std::max<std::int64_t>(
                                                             0, (now_ns() - start_ns_.load()) / 1'000'000)));
  const std::uint64_t inserts = changes(rate_.inserts_per_minute, ms);
  const std::uint64_t deletes = std::min(base_count_, changes(rate_.deletes_per_minute, ms));
  std::shared_ptr<const Timeline> timeline;
  {
    const std::lock_guard lock(cache_mutex_);
    for (const auto& state : cache_)
      if (state->inserted == inserts && state->deleted.size() == deletes) return state;
    timeline = timeline_for(inserts, deletes);
  }
  auto state = std::make_shared<State>();
  state->inserted = inserts;
  state->timeline = timeline;
  state->deleted.reserve(deletes);
  for (const auto& [position, step] : timeline->by_position)
    if (step <= deletes) state->deleted.push_back(position);
  state->deleted_ids.reserve(deletes);
  for (const auto& [id, step] : timeline->by_id)
    if (step <= deletes) state->deleted_ids.push_back(id);
  constexpr std::size_t kStatesKept = 4;
  const std::lock_guard lock(cache_mutex_);
  if (cache_.size() == kStatesKept) cache_.erase(cache_.begin());
  cache_.push_back(state);
  return state;
}

Record ChurnDataset::inserted(std::uint64_t i) const {
  // A record like one of the base's (its picture, names and entity), with the next id and a new file.
  std::vector<Record> like;
  if (base_count_ > 0) base_->page({}, draw(seed_, 1, i) % base_count_, 1, like);
  Record r = like.empty() ? Record{} : like.front();
  r.id = base_max_id_ + static_cast<std::int64_t>(i);
  r.order = insert_order_;
  r.key = std::nullopt;
  const std::string uuid = uuid4_text(draw(seed_, 3, i), draw(seed_, 4, i));
  const std::size_t slash = r.file.rfind('/');
  const std::string name = slash == std::string::npos ? "churn.jpg" : r.file.substr(slash + 1);
  r.file = "filer_public/" + uuid.substr(0, 2) + "/" + uuid.substr(2, 2) + "/" + uuid + "/" + name;
  if (like.empty()) r.mime_type = "image/jpeg";
  return r;
}

std::vector<Record> ChurnDataset::selection_records(const Selection& selection, const State& state) const {
  std::vector<Record> out;
  for (std::uint64_t i = 1; i <= state.inserted; ++i)
    if (state.timeline->insert_entities[i - 1] == selection.entity) out.push_back(inserted(i));
  std::vector<Record> base;
  base_->page(selection, 0, base_->count(selection), base);
  for (Record& r : base)
    if (!std::binary_search(state.deleted_ids.begin(), state.deleted_ids.end(), r.id))
      out.push_back(std::move(r));
  return out;
}

std::uint64_t ChurnDataset::count(const Selection& selection) const {
  if (selection.matches_nothing) return 0;
  const auto state = state_now();
  if (!selection.entity) return base_count_ - state->deleted.size() + state->inserted;
  return selection_records(selection, *state).size();
}

void ChurnDataset::page(const Selection& selection, std::uint64_t offset, std::uint64_t limit,
                        std::vector<Record>& out) const {
  if (selection.matches_nothing || limit == 0) return;
  const auto state = state_now();
  if (selection.entity) {
    const std::vector<Record> all = selection_records(selection, *state);
    for (std::uint64_t q = offset; q < all.size() && q - offset < limit; ++q)
      out.push_back(all[q]);
    return;
  }
  // Inserts come first (their order is below every other), then the base without its deleted records.
  std::uint64_t q = offset;
  const std::uint64_t end = limit > UINT64_MAX - offset ? UINT64_MAX : offset + limit;
  for (; q < end && q < state->inserted; ++q)
    out.push_back(inserted(q + 1));
  if (q >= end) return;
  std::uint64_t p = q - state->inserted;  // the p-th surviving base record ...
  std::size_t next = 0;
  const auto& del = state->deleted;
  while (next < del.size() && del[next] <= p)
    ++p, ++next;  // ... is at base position p
  std::uint64_t left = end - q;
  while (left > 0 && p < base_count_) {
    const std::uint64_t run_end = next < del.size() ? del[next] : base_count_;
    const std::uint64_t n = std::min(left, run_end - p);
    base_->page({}, p, n, out);
    left -= n;
    p += n;
    if (next < del.size() && p == del[next]) ++p, ++next;
  }
}

std::string ChurnDataset::describe() const {
  return base_->describe() + ", churning " + std::to_string(rate_.inserts_per_minute) + " inserts and " +
         std::to_string(rate_.deletes_per_minute) + " deletes a minute";
}

std::optional<Record> ChurnDataset::find_by_id(std::int64_t id) const {
  const auto state = state_now();
  if (id > base_max_id_ && static_cast<std::uint64_t>(id - base_max_id_) <= state->inserted)
    return inserted(static_cast<std::uint64_t>(id - base_max_id_));
  if (std::binary_search(state->deleted_ids.begin(), state->deleted_ids.end(), id)) return std::nullopt;
  return base_->find_by_id(id);
}

std::optional<Record> ChurnDataset::find_by_file(std::string_view file) const {
  const auto state = state_now();
  if (auto r = base_->find_by_file(file))
    return std::binary_search(state->deleted_ids.begin(), state->deleted_ids.end(), r->id) ? std::nullopt : r;
  for (std::uint64_t i = 1; i <= state->inserted; ++i)
    if (Record r = inserted(i); r.file == file) return r;
  return std::nullopt;
}

}  // namespace entimg::mock::detail

namespace entimg::mock {

std::shared_ptr<const Dataset> make_churn_dataset(std::shared_ptr<const Dataset> base, std::uint32_t inserts,
                                                  std::uint32_t deletes, std::uint64_t seed) {
  return std::make_shared<detail::ChurnDataset>(std::move(base), detail::ChurnRate{inserts, deletes}, seed);
}

}  // namespace entimg::mock
