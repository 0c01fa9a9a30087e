#pragma once
// Bounded failure reporting for a rule that may fail many times on one page.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "entimg/contract/checks.hpp"

namespace entimg::contract::detail {

/// Failures reported per rule per page before the rest are summed up in one "… and N more".
inline constexpr std::size_t kFailuresPerPage = 20;

/// Reports up to kFailuresPerPage failures of one rule, then counts the rest; finish() adds the
/// "… and N more" line and the passes.
class FailureBudget {
 public:
  FailureBudget(Findings& findings, std::string_view rule, std::string url)
      : findings_(findings), rule_(rule), url_(std::move(url)) {}
  FailureBudget(const FailureBudget&) = delete;
  FailureBudget& operator=(const FailureBudget&) = delete;
  /// True while a further failure would still be reported in full (lets callers skip costly messages).
  bool room() const { return reported_ < kFailuresPerPage; }
  void fail(std::string message, std::string pointer = {}, std::optional<std::int64_t> id = std::nullopt);
  void pass(std::uint64_t n = 1) { passes_ += n; }
  /// Failures so far, reported or counted.
  std::size_t failures() const { return reported_ + more_; }
  /// what_more names the unit of the summary line ("failures", "records").
  void finish(std::string_view what_more = "failures");

 private:
  Findings& findings_;
  std::string_view rule_;
  std::string url_;
  std::size_t reported_ = 0;
  std::size_t more_ = 0;
  std::uint64_t passes_ = 0;
};

}  // namespace entimg::contract::detail
