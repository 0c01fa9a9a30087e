#include "failure_budget.hpp"

namespace entimg::contract::detail {

void FailureBudget::fail(std::string message, std::string pointer, std::optional<std::int64_t> id) {
  if (reported_ >= kFailuresPerPage) {
    ++more_;
    return;
  }
  ++reported_;
  findings_.fail({std::string(rule_), std::move(message), url_, std::move(pointer), id});
}

void FailureBudget::finish(std::string_view what_more) {
  if (more_ > 0) {
    findings_.fail(
        {std::string(rule_),
         "… and " + std::to_string(more_) + " more " + std::string(what_more) + " of this rule on this page",
         url_, "", std::nullopt});
    more_ = 0;
  }
  findings_.pass(rule_, passes_);
  passes_ = 0;
}

}  // namespace entimg::contract::detail
