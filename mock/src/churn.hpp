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
  /// The collection's state at one moment: inserts 1..inserted, and the base positions deleted.
  struct State {
    std::uint64_t inserted = 0;
    std::vector<std::uint64_t> deleted;          // base positions, ascending, distinct
    std::vector<std::int64_t> deleted_entities;  // the entity of each, same index
    std::vector<std::int64_t> deleted_ids;       // sorted
    std::vector<std::int64_t> insert_entities;   // of inserts 1..inserted
  };
  std::shared_ptr<const State> state_now() const;
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
  mutable std::shared_ptr<const State> cache_;  // the last state computed, reused while it holds
};

}  // namespace entimg::mock::detail
