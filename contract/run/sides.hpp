#pragma once
// The quick plan's sides (docs/contract.md, "Sides"): besides the plain pages, the deployment as a client
// meets it from elsewhere. A filter and the nested route, the browsable HTML and JSON of the same URL in
// either order, compressed answers, a proxy's headers and a second Host, a few requests each, every answer
// judged by the page rules and by the side's own rule (contract/rules/checks_sides.cpp).
#include <cstdint>
#include <optional>
#include <string>

#include "coverage.hpp"
#include "entimg/common/prng.hpp"
#include "entimg/contract/checks.hpp"
#include "entimg/contract/http.hpp"
#include "entimg/contract/runner.hpp"

namespace entimg::contract::detail {

/// An entity no deployment has: the largest 32-bit id, beyond any auto-increment key in use.
inline constexpr std::string_view kEntityWithoutImages = "2147483647";
/// What a browser sends as Accept (Chromium's), which DRF answers with the browsable API.
inline constexpr std::string_view kBrowserAccept =
    "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";

/// What count_stable finds on the quick plan's pages, kept apart and settled at the plan's end
/// (settle_quick_counts): a count that moved one way is writes, a warning; both ways, a failure.
struct QuickCounts {
  Findings found;
  std::vector<std::uint64_t>
      counts;  ///< the counts the pages gave, in the order asked, the first page's first
  /// The page against the first page (count_stable), its count logged.
  void judge(const CheckContext& context, const FirstPage& first, const Page& page);
};

/// An origin no deployment allows: what a foreign web page's fetch sends as Origin.
inline constexpr std::string_view kForeignOrigin = "https://foreign-site.invalid";

class SidePlan {
 public:
  SidePlan(Client& client, const CheckContext& context, const RunOptions& options, Findings& findings,
           Coverage& coverage, QuickCounts& counts);
  /// Takes from the unfiltered first page the entity the filter side asks for (the one it shows most
  /// often) and the ids it shows for it.
  void learn_first_page(const Page& first);
  /// Sends every side's requests and judges the answers; count (nullopt: it gave none) and first_url are
  /// the first page's.
  void run(std::optional<std::uint64_t> count, const std::string& first_url);

 private:
  Page fetch(const std::string& path, common::QueryParams params, std::uint64_t limit, std::uint64_t offset,
             const Headers& headers = {});
  void judge(const Page& page, bool same_collection, const Headers& asked = {},
             bool side_judges_origins = false, const std::string& origin = {});
  void judge_html(const Page& page, const Headers& asked);
  void side(const SideAsk& ask, const Page& answer, const Page* other);
  void side(const SideAsk& ask, const Page& answer, const Page* other, Findings& into);
  std::uint64_t offset_for(std::uint64_t limit);

  void filters();
  void filter_inputs();
  void ask_filtered(const SideAsk& ask, const std::string& path, common::QueryParams params,
                    std::uint64_t offset, Findings& into);
  void negotiation();
  void compression();
  void proxy();
  void host();
  void cors();
  void judge_origin_pair(const SideAsk& ask, std::uint64_t limit, bool plain_first);

  Client& client_;
  const CheckContext& context_;
  const RunOptions& options_;
  Findings& findings_;
  Coverage& coverage_;
  QuickCounts& counts_;
  SideState state_;
  common::Pcg32 rng_;
  std::string entity_;  // the entity the first page shows most, "" when it shows none
  // filter: every filtered answer so far listed the whole collection (its count and records), and one of
  // them a record of another entity than asked
  bool all_unfiltered_ = true, other_entity_seen_ = false;
  std::optional<std::uint64_t> count_;
  std::string first_url_;
};

}  // namespace entimg::contract::detail
