#pragma once
// A live collection (--churn INSERTS:DELETES): records inserted and deleted as time passes, so an app that
// pages meets what DRF's offset pagination does under writes. Everything is a function of the seed and of
// the request's time (X-Mock-Time, else the time since the start), so a test can replay it exactly.
// docs/mock.md, "A live collection (--churn)".
#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "entimg/mock/dataset.hpp"

namespace entimg::mock::detail {

struct ChurnRate {
  std::uint32_t inserts_per_minute = 0;
  std::uint32_t deletes_per_minute = 0;
};

/// The time of the request this thread handles, in ms since the collection's start (X-Mock-Time sets
/// it); nullopt: the clock's own.
void set_request_time(std::optional<std::uint64_t> ms);

class ChurnDataset final : public Dataset {
 public:
  ChurnDataset(std::shared_ptr<const Dataset> base, ChurnRate rate, std::uint64_t seed);

  std::uint64_t count(const Selection& selection) const override;
  void page(const Selection& selection, std::uint64_t offset, std::uint64_t limit,
            std::vector<Record>& out) const override;
  std::string describe() const override;
  std::optional<Record> find_by_file(std::string_view file) const override;
  std::optional<Record> find_by_id(std::int64_t id) const override;
  std::int64_t max_id() const override { return base_max_id_; }
  void restart() const override;

 private:
  /// The changes in the order they happen, the same at every replay, computed once for every moment: the
  /// j-th delete's base position (and id), the i-th insert's entity. A moment is a prefix of each.
  struct Timeline {
    std::vector<std::uint64_t> deleted_in_order;  // base positions, the j-th delete at j-1
    std::unordered_set<std::uint64_t> gone;       // the same positions, to draw the next delete
    /// Every delete as (base position, step), by position; and as (id, step), by id.
    std::vector<std::pair<std::uint64_t, std::uint64_t>> by_position;
    std::vector<std::pair<std::int64_t, std::uint64_t>> by_id;
    std::vector<std::int64_t> insert_entities;  // of inserts 1, 2, ...
  };
  /// The collection's state at one moment: inserts 1..inserted, and the base positions deleted.
  struct State {
    std::uint64_t inserted = 0;
    std::vector<std::uint64_t> deleted;     // base positions, ascending, distinct
    std::vector<std::int64_t> deleted_ids;  // sorted
    std::shared_ptr<const Timeline> timeline;
  };
  std::shared_ptr<const State> state_now() const;
  std::shared_ptr<const Timeline> timeline_for(std::uint64_t inserts, std::uint64_t deletes) const;
  Record inserted(std::uint64_t i) const;  // the i-th insert, from 1
  std::vector<Record> selection_records(const Selection& selection, const State& state) const;

  std::shared_ptr<const Dataset> base_;
  ChurnRate rate_;
  std::uint64_t seed_;
  std::uint64_t base_count_;
  std::int64_t base_max_id_;
  std::int64_t insert_order_;  // one below the lowest order: inserts are listed first
  mutable std::atomic<std::int64_t> start_ns_;
  mutable std::mutex cache_mutex_;
  mutable std::shared_ptr<const Timeline> timeline_;         // grown as later moments need it
  mutable std::vector<std::shared_ptr<const State>> cache_;  // the states of the last few moments
};

}  // namespace entimg::mock::detail
