#pragma once
// One function per rule. A check reports into a Findings: each call to fail() is one violation,
// and pass() counts something checked that held (so a report can say "checked 3,600 records").
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "entimg/common/schema.hpp"
#include "entimg/contract/observation.hpp"

namespace entimg::contract {

struct Failure {
  std::string rule;
  std::string message;  ///< "expected …, got …": what a person needs to act
  std::string url;
  std::string pointer;  ///< JSON pointer into the body, when there is one
  std::optional<std::int64_t> record_id;
};

/// Keeps what the checks found, bounded whatever the server sends: message, URL and pointer are cut
/// at a few KiB each, and past kKeptFailures failures of a rule only their number is kept.
class Findings {
 public:
  static constexpr std::size_t kKeptFailures = 200;
  void fail(Failure failure);
  void pass(std::string_view rule, std::uint64_t n = 1);
  /// Something a person should know that is not a failure, e.g. which previous-link style the
  /// deployment uses; the same note is kept once.
  void note(std::string_view rule, std::string text);
  const std::vector<Failure>& failures() const { return failures_; }
  const std::vector<std::pair<std::string, std::string>>& notes() const { return notes_; }
  /// How many times the rule was checked (passes + failures).
  std::uint64_t checked(std::string_view rule) const;
  /// Failures of the rule counted but not kept (past kKeptFailures).
  std::uint64_t left_out(std::string_view rule) const;
  void merge(const Findings& other);

 private:
  struct Tally {
    std::string rule;
    std::size_t kept = 0;
    std::uint64_t left_out = 0;
  };
  Tally& tally(std::string_view rule);
  std::vector<Failure> failures_;
  std::vector<Tally> tallies_;
  std::vector<std::pair<std::string, std::uint64_t>> passes_;
  std::vector<std::pair<std::string, std::string>> notes_;
};

/// What the checks need besides the pages.
struct CheckContext {
  std::string origin;           ///< scheme://host[:port] links and images must use (--public-url or base URL)
  std::string collection_path;  ///< "/prefix/edw/api/entities-images/"
  std::string order_key = "id";  ///< --order-key
  const common::SchemaValidator* page_schema = nullptr;
  const common::SchemaValidator* record_schema = nullptr;
};

// Page rules (each is given one fetched page; pages that are not a 200 JSON object are skipped by
// the rules that need a body, and reported by status_ok / json_body).
void status_ok(const CheckContext&, const Page&, Findings&);
void json_body(const CheckContext&, const Page&, Findings&);
void page_schema(const CheckContext&, const Page&, Findings&);
void record_schema(const CheckContext&, const Page&, Findings&);
void image_matches_file(const CheckContext&, const Page&, Findings&);
void file_layout(const CheckContext&, const Page&, Findings&);
void mime_type_matches_extension(const CheckContext&, const Page&, Findings&);
void page_length(const CheckContext&, const Page&, Findings&);
void next_link_offset(const CheckContext&, const Page&, Findings&);
void previous_link_offset(const CheckContext&, const Page&, Findings&);
void links_keep_parameters(const CheckContext&, const Page&, Findings&);
void link_origin(const CheckContext&, const Page&, Findings&);
void results_ascending(const CheckContext&, const Page&, Findings&);
void content_type_json(const CheckContext&, const Page&, Findings&);
void allow_header(const CheckContext&, const Page&, Findings&);
void vary_accept(const CheckContext&, const Page&, Findings&);

// Rules over two or more answers.
/// A full default page (no limit sent, count >= 12) holds 12 records and its links carry limit=12.
void default_page_length(const CheckContext&, const Page& default_page, Findings&);
/// HEAD answers with GET's status and headers (Content-Length included) and no body.
void head_matches_get(const CheckContext&, const Page& get, const HttpExchange& head, Findings&);
/// OPTIONS answers 200.
void options_ok(const CheckContext&, const HttpExchange& options, Findings&);
/// format=json and no format give the same JSON.
void format_json_same(const CheckContext&, const Page& with_format, const Page& without_format, Findings&);
/// A parameter probe (limit=abc, offset=-1, …): never 5xx (the page's expected window is DRF's).
void parameter_probe(const CheckContext&, const Page& probe, Findings&);
/// Consecutive pages of a walk: the last id of one page is below the first of the next.
void ascending_across_pages(const CheckContext&, const Page& earlier, const Page& later, Findings&);
/// The same request twice returns the same ids.
void refetch_same_ids(const CheckContext&, const Page& first, const Page& again, Findings&);
/// "count: total number of image records" (spec §2.2): a page of the quick plan reports the count of the
/// first page (first_url).
void count_stable(const CheckContext&, std::uint64_t first_count, const std::string& first_url,
                  const Page& page, Findings&);

/// The state of a walk along `next`, fed page by page (constant memory but for the seen ids).
class WalkChecker {
 public:
  explicit WalkChecker(const CheckContext& context) : context_(context) {}
  void add(const Page& page, Findings& findings);
  /// reached_end: the walk ended on next == null (not on the page cap or an error).
  void finish(bool reached_end, std::uint64_t page_cap, Findings& findings);
  /// The walk stopped at its byte cap (--byte-cap) after `bytes` bytes of bodies: walk_reaches_end fails.
  void finish_at_byte_cap(std::uint64_t byte_cap, std::uint64_t bytes, Findings& findings);
  std::uint64_t records_seen() const { return records_seen_; }

 private:
  const CheckContext& context_;
  std::unordered_set<std::int64_t> seen_ids_;  // a hash set: a misordered walk must not go quadratic
  std::optional<std::uint64_t> first_count_;
  std::uint64_t records_seen_ = 0;
  std::uint64_t pages_ = 0;
  std::string first_url_;
  std::string last_url_;
};

}  // namespace entimg::contract
