#pragma once
// Which of DRF's behaviours a run exercised, told by the requests it made: each request is classified
// as it is answered, so the report's coverage table says what was asked, not what the plan meant to ask.
#include <optional>

#include "entimg/contract/observation.hpp"
#include "entimg/contract/runner.hpp"

namespace entimg::contract::detail {

struct CoveredRequest;

class Coverage {
 public:
  Coverage();
  /// A GET of the collection as the suite sent it (page.sent) and as it was answered.
  void add(const Page& page);
  /// A HEAD or OPTIONS of the collection (no parameters).
  void add(const HttpExchange& exchange);
  /// Every behaviour in the table's order, with how many requests exercised it (0: none did).
  const std::vector<CoverageRow>& rows() const { return rows_; }

 private:
  void add(const CoveredRequest& request, const HttpExchange& exchange);
  std::vector<CoverageRow> rows_;
};

}  // namespace entimg::contract::detail
