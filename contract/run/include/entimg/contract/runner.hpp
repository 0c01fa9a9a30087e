#pragma once
// The suite's plan: which requests to make (quick or full), in which order, and which rules
// judge each answer. It collects a RunReport; reporting is separate (report.hpp).
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "entimg/common/schema.hpp"
#include "entimg/contract/checks.hpp"
#include "entimg/contract/http.hpp"
#include "entimg/contract/rules.hpp"

namespace entimg::contract {

enum class Mode { Quick, Full };

/// The default page cap's ceiling: the cap comes from the server's `count`, which a hostile or broken
/// server can make 10^18.
inline constexpr std::uint64_t kMaxWalkPages = 100000;
/// The default cap's ceiling when the walk loads pictures: its pages and their pictures' requests together,
/// so that a walk of an endless collection ends by itself in a couple of minutes, pictures and all.
inline constexpr std::uint64_t kMaxWalkRequests = 400000;
/// The bytes of page bodies a full walk reads by default before it stops (4 GiB).
inline constexpr std::uint64_t kWalkByteCap = std::uint64_t{4} << 30;

/// Where a full walk stands, for a progress display.
struct Progress {
  std::uint64_t records = 0;
  std::uint64_t total = 0;  ///< the collection's count, 0 when unknown
  std::uint64_t pages = 0;
  std::chrono::milliseconds elapsed{0};
  std::uint64_t pictures = 0;  ///< picture requests sent so far
};

/// Which pictures a run loads and judges (--images): all (the quick plan's pages' in quick mode, the walk's
/// in full mode), a sample of them spread over the walk, or none.
struct ImagesChoice {
  enum class Kind { all, sample, none };
  Kind kind = Kind::all;
  std::uint64_t sample = 0;  ///< sample: how many
};

struct RunOptions {
  Mode mode = Mode::Quick;
  std::optional<std::string> public_url;  ///< the origin links and images must carry, when not the base URL's
  /// --alt-host: a second host name of the deployment ("host[:port]"), asked as Host and X-Forwarded-Host;
  /// empty: the base host with its port written the other way (docs/contract.md, "Sides")
  std::string alt_host;
  std::uint64_t walk_limit = 0;  ///< full: the limit of each walk page; 0 sends none (DRF's 12)
  /// full: the most requests the walk sends, pages and their pictures (0: the pages count/limit needs, plus
  /// the pictures loaded, plus 2; at most kMaxWalkRequests, or kMaxWalkPages without pictures)
  std::uint64_t page_cap = 0;
  std::uint64_t byte_cap =
      kWalkByteCap;  ///< full: the walk stops once its bodies (pages, pictures) reach this
  std::uint64_t seed = 0;
  std::string order_key = "id";
  std::vector<std::string> only, skip;  ///< rule names
  std::size_t concurrency = 1;          ///< pages in flight during a full walk
  std::size_t picture_concurrency = 4;  ///< pictures loading at once (their own threads)
  ImagesChoice images;                  ///< --images
  /// --require-filter: a deployment that ignores ?entity= altogether fails entity_filter and filter_input
  /// (by default a warning: edw's filter_class is ignored by django-filter 22.1 and later)
  bool require_filter = false;
  std::function<void(const Progress&)> on_progress;
};

struct RuleOutcome {
  const Rule* rule = nullptr;
  bool selected = true;  ///< false: left out by --only/--skip
  std::uint64_t checked = 0;
  std::vector<Failure> failures;
  std::uint64_t failures_found = 0;  ///< every failure found, those past the kept ones included
  /// From its first judgement to its last (Findings::judged_for): the JUnit report's time of the rule.
  std::chrono::nanoseconds judged_for{0};
  std::vector<std::string> notes;
  bool passed() const { return selected && checked > 0 && failures.empty(); }
  bool failed() const { return selected && !failures.empty(); }
};

/// One DRF behaviour a request can exercise, and how this run's requests did.
struct CoverageRow {
  std::string_view behaviour;  ///< "limit not a whole number: DRF falls back to PAGE_SIZE"
  std::string_view source;     ///< where the behaviour is described
  std::uint64_t requests = 0;  ///< requests of the run that exercised it; 0: none did
  std::string example;         ///< the first of them, "GET /edw/api/entities-images/?limit=abc"
  std::vector<int> statuses;   ///< the statuses they got, ascending, each once (0: no answer)
};

struct RunReport {
  std::string base_url;
  Mode mode = Mode::Quick;
  std::uint64_t seed = 0;
  std::vector<RuleOutcome> rules;  ///< every rule, in all_rules() order
  std::uint64_t requests = 0;
  std::uint64_t records_seen = 0;      ///< records the full walk went through
  std::optional<std::uint64_t> count;  ///< the first page's `count`, when it gave one
  std::chrono::milliseconds walk_duration{0};
  std::chrono::milliseconds duration{0};
  /// The behaviours the table of coverage.cpp knows, each with the requests that exercised it.
  std::vector<CoverageRow> coverage;
  std::string fatal_error;  ///< set when the deployment could not be checked at all (exit 2)
  /// Why the run stopped before its end (the run's deadline, a signal), or "" when it ran to its end; then
  /// `unchecked` says what it checked and what it left.
  std::string stopped;
  std::string unchecked;
  /// The kind of the first page's failure behind fatal_error; none when nothing was asked (a setup error).
  FailureKind fatal_failure = FailureKind::none;

  std::size_t passed() const;
  std::size_t failed() const;
  /// Selected rules nothing exercised (e.g. a walk rule in quick mode, or after a fatal error).
  std::size_t not_run() const;
  /// The deployment answered, yet no rule passed or failed: every rule left in found nothing to judge (say,
  /// --only results_ascending on an empty collection; options that could check nothing whatever the answers
  /// are refused before the run, nothing_to_check). Such a run cannot pass: its verdict is ERROR, exit 2.
  bool checked_nothing() const { return fatal_error.empty() && passed() == 0 && failed() == 0; }
};

/// What the verdict line and the error say of a run that checked nothing (RunReport::checked_nothing).
inline constexpr std::string_view kCheckedNothing =
    "no rule was checked: every rule left in was skipped, so the run cannot pass";

struct Schemas {
  common::SchemaValidator page;
  common::SchemaValidator record;
  /// The project's schema files (common::schema_dir()).
  static Schemas load();
};

/// The rules --only and --skip leave out of a run, in the table's order (names of all_rules()).
std::vector<std::string_view> rules_left_out(const RunOptions& options);

/// Why a run with these options could check nothing whatever the deployment answers, or "": --only and
/// --skip leave no rule in, or (quick mode) only rules of the full walk. Said before any request; a run
/// that checks nothing for another reason ends as RunReport::checked_nothing says.
std::string nothing_to_check(const RunOptions& options);

/// Runs the suite against client's base URL. Never throws for what the server does.
RunReport run_contract(Client& client, const Schemas& schemas, const RunOptions& options);

}  // namespace entimg::contract
