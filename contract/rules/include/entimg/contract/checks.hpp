#pragma once
// What the rules report into and read besides the pages (the rules themselves are rows of rules.hpp's
// table). A check reports into a Findings: each call to fail() is one violation, and pass() counts
// something checked that held (so a report can say "checked 3,600 records").
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <map>
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
  /// The headers the failing answer's request sent besides --header's (a side's Accept-Encoding, Host, …),
  /// which a replay of it must send too.
  Headers request_headers{};
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
  /// How long the rule was in play: from its first judgement (a pass or a failure) to its last, as the run's
  /// clock saw them; zero for a rule judged once or never. Rules judge answers as they come, interleaved, so
  /// these spans overlap (the JUnit report's time of each rule).
  std::chrono::nanoseconds judged_for(std::string_view rule) const;
  void merge(const Findings& other);
  /// merge(other), but the failures of these rules count as passes: what explains them is the caller's note.
  void merge_excusing(const Findings& other, const std::vector<std::string_view>& rules);
  /// Gives the failures found since failures().size() was `from`, and have no request headers yet, those of
  /// their request (a side's), for reports to replay them.
  void set_request_headers(std::size_t from, const Headers& headers);

 private:
  struct Tally {
    std::string rule;
    std::size_t kept = 0;
    std::uint64_t left_out = 0;
  };
  struct Span {
    std::string rule;
    std::chrono::steady_clock::time_point first, last;
  };
  Tally& tally(std::string_view rule);
  void judged(std::string_view rule, std::chrono::steady_clock::time_point first,
              std::chrono::steady_clock::time_point last);
  void merge_spans(const Findings& other);
  std::vector<Span> spans_;
  bool stamping_ = true;  // false while merging: the other's judgements keep their own times
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
  /// The rules --only/--skip leave out: never run, so they cost nothing (a walk without record_schema
  /// takes about a quarter less CPU); empty, every rule runs.
  std::vector<std::string_view> left_out;
  bool runs(std::string_view rule) const {
    return left_out.empty() || std::find(left_out.begin(), left_out.end(), rule) == left_out.end();
  }
};

/// The ids a walk has seen, for walk_no_duplicates. A walk's ids normally rise, so each id above every one
/// before it is new without a look-up and is appended to a sorted vector (8 bytes an id, where a hash set's
/// node costs 32 and an allocation); an id at or below the highest is looked up there by binary search and
/// in a hash set of the ids that came out of order, so a misordered walk does not go quadratic either.
class IdSet {
 public:
  /// Adds id; false when it was there already.
  bool insert(std::int64_t id);
  void reserve(std::size_t ids) { rising_.reserve(ids); }
  std::size_t size() const { return rising_.size() + others_.size(); }

 private:
  std::vector<std::int64_t> rising_;         // each above the one before
  std::unordered_set<std::int64_t> others_;  // the rest, each below rising_.back()
};

/// A full walk so far, as WalkChecker keeps it for the walk rules (rules.hpp's WalkPages).
struct WalkState {
  explicit WalkState(const CheckContext& c) : context(c) {}
  explicit WalkState(CheckContext&&) = delete;  // it keeps a reference: a temporary would dangle
  const CheckContext& context;
  std::uint64_t pages = 0;                   ///< pages added, the one being judged included
  std::uint64_t records_seen = 0;            ///< records on those pages
  std::optional<std::uint64_t> count;        ///< the count of the page being judged
  std::optional<std::uint64_t> first_count;  ///< the first count a page of the walk gave, an earlier page's
  std::optional<std::uint64_t> max_count;    ///< the highest count a page of the walk gave
  std::optional<std::uint64_t> min_count;    ///< the lowest count a page of the walk gave
  std::uint64_t duplicates = 0;              ///< records whose id the walk had seen before
  std::string first_url;                     ///< the walk's first page
  std::string last_url;                      ///< the page being judged, or the last one
  bool dead_end = false;                     ///< the page being judged is empty, yet its next is a link
  bool reached_end = false;                  ///< the last page added has next null
  /// Why the walk cannot go on from the last page added ("a page answered with status 500"), when it did
  /// not end there; "" when its next is a link to follow.
  std::string stop_reason;
  /// The ids walk_no_duplicates has seen.
  IdSet seen_ids;
  std::uint64_t page_cap = 0;  ///< at the end: the most requests the walk could send (--page-cap)
  std::uint64_t pictures = 0;  ///< at the end: the requests its pictures took, counted against page_cap
  std::uint64_t byte_cap = 0;  ///< at the end: non-zero when the walk stopped at its byte cap (--byte-cap)
  std::uint64_t bytes = 0;     ///< at the end, with byte_cap: the bytes of bodies the walk read
};

/// An answer reached as a browser reaches it, following redirects: every exchange in order, the answer last.
struct Followed {
  std::vector<HttpExchange> hops;  ///< at least one
  /// Why the redirects led to no answer ("a redirect loop", "more than 5 redirects", a 3xx without
  /// Location), or "".
  std::string error;
  const HttpExchange& answer() const { return hops.back(); }
};

/// A record's picture as a client loads it from the list (image_loads judges it).
struct PictureAsk {
  std::optional<std::int64_t> record_id;
  std::string image;                       ///< the record's image URL
  std::string mime_type;                   ///< the record's mime_type
  std::string page_url;                    ///< the list page that listed it
  std::string pointer;                     ///< "/results/3/image"
  std::optional<std::uint64_t> file_size;  ///< the record's file_size, when a whole number
  /// Read whole (no Range, up to the per-picture cap) and judged to its end; otherwise its head alone
  /// (Range: bytes=0-1023): status, type, signature and the length its headers give.
  bool whole = false;
};

/// A picture's length as its answer gave it, against the record's file_size (settle_picture_sizes).
struct PictureLength {
  std::optional<std::int64_t> record_id;
  std::string image;     ///< the URL asked
  std::string page_url;  ///< the list page that listed it
  std::uint64_t file_size = 0;
  std::uint64_t length = 0;
  std::string how;  ///< where the length came from: "read whole", "Content-Range total", "Content-Length"
};

/// The length of the file a picture's answer (200 or 206) gives: a body read whole, a 206's Content-Range
/// total, a 200's Content-Length; nullopt when it gives none, or the picture did not load.
std::optional<PictureLength> picture_length(const PictureAsk& ask, const Followed& got);

/// The pictures' lengths against their records' file_size, bounded: how many agree, the first ones that
/// differ (those past Findings::kKeptFailures only counted).
struct PictureSizes {
  std::uint64_t seen = 0, agree = 0;
  std::optional<PictureLength> example;  ///< the first seen, for a note
  std::vector<PictureLength> differing;
  std::uint64_t differing_left = 0;
  void add(PictureLength length);
  void merge(const PictureSizes& other);
};

/// file_size's unit is left open by the spec; the deployment says it: where the pictures read nearly all
/// have file_size equal to their length in bytes (as django-filer stores it), one whose length differs is
/// a file cut short or replaced, and image_loads fails naming its record; where they never agree, a note.
void settle_picture_sizes(const PictureSizes& sizes, Findings& into);

/// What a client asks past the list, besides the pictures; a FollowUp rule of rules.hpp judges the answers of
/// its step (contract/run/follow_ups.cpp asks).
enum class FollowStep {
  record_opened,   ///< a listed record's detail route, /edw/api/entities-images/<id>/
  slashless_path,  ///< the collection path without its trailing slash, with a query
  revalidated,     ///< a page asked again with validators (If-None-Match, If-Modified-Since)
};
struct FollowAsk {
  FollowStep step{};
  std::string label{};  ///< what was asked, as messages say it
  /// record_opened: the list page that listed the record; slashless_path: the same window asked with the
  /// slash; revalidated: the page whose validators were sent.
  const Page* listed = nullptr;
  std::size_t index = 0;          ///< record_opened: the record's index in listed's results
  const Followed* got = nullptr;  ///< the exchanges, redirects followed (the slashless path's)
  const Page* answer = nullptr;   ///< the answer, parsed as a page
  /// revalidated: the validators came from another page's or another representation's answer, so a 304
  /// would hand the client a stale or wrong body.
  bool validators_of_another = false;
};

/// A request of one side of the quick plan (docs/contract.md, "Sides"): what it asked besides the plain
/// request.
/// The sides of the quick plan; a SideAnswer row names the one whose answers it judges.
enum class PlanSide { filter, filter_input, negotiation, compression, proxy, host, cors };

struct SideAsk {
  PlanSide side{};          ///< which side asked it
  std::string label{};      ///< what it asked, as messages say it: "Accept-Encoding: gzip", "?entity=60986"
  Headers headers{};        ///< sent with it, each replacing --header's of the same name
  std::string origin{};     ///< proxy, host: links' and images' origin when the headers are followed
  std::string entity{};     ///< filter: the entity asked for
  bool nested = false;      ///< filter: asked on /edw/api/entities/<entity>/images/ rather than with ?entity=
  bool wants_html = false;  ///< negotiation: the browsable HTML was asked for (else JSON)
  bool other_first = false;  ///< the other answer of the same URL (the plain one) was asked before this one
  /// filter_input: DRF lists records for this input (edw drops an empty parameter: the whole collection);
  /// otherwise it is refused (400) or lists none (a number no entity has).
  bool lists_records = false;
};

/// What the sides of the quick plan have seen so far, for the rules that compare answers across requests.
struct SideState {
  explicit SideState(const CheckContext& c) : context(c) {}
  explicit SideState(CheckContext&&) = delete;  // it keeps a reference: a temporary would dangle
  const CheckContext& context;
  std::uint64_t collection_count = 0;  ///< the first page's count
  /// filter: the ids the unfiltered first page shows for each entity asked for, in its order
  std::map<std::string, std::vector<std::int64_t>> first_page_ids;
  /// filter: the first page of ?entity=N by entity, which the nested route must list too
  struct Filtered {
    std::optional<std::uint64_t> count;
    std::vector<std::int64_t> ids;
    std::vector<std::string> records;  ///< each record's members, key-sorted, values minified
    std::string url;
  };
  std::map<std::string, Filtered> by_query;
  /// filter: the deployment ignores ?entity= altogether (every filtered answer lists the whole collection),
  /// as edw's filter_class under django-filter 22.1 and later does; known once the filter side has asked
  bool filter_ignored = false;
  /// --require-filter: a deployment that ignores ?entity= fails (by default that is a warning)
  bool require_filter = false;
  /// proxy, host: how the deployment answered each ask (its label): true followed, false ignored, and where
  std::map<std::string, std::pair<bool, std::string>> followed;
};

/// A count that moved one way while the quick plan went on (records written or deleted meanwhile), each page
/// judged by its own count: `counts` are those the plan's pages gave in the order asked, the first page's
/// first; `count_now` the first page's asked again at the plan's end. count_stable's failures in `found` are
/// then a warning note with the counts; a count that went both ways, or did not stay, leaves them failures.
bool settle_quick_counts(const std::vector<std::uint64_t>& counts, std::optional<std::uint64_t> count_now,
                         const Findings& found, Findings& into);

/// A count that grew (or fell) while a walk went on, explained by writes (records appended or put first, or
/// deleted) rather than by a paginator that miscounts: what count_stable, walk_count_matches,
/// walk_no_duplicates and ascending_across_pages found over the walk is settled here with the first page
/// asked again at its end (docs/contract-rules.md, "Decisions"). `count_now` is that page's count (nullopt:
/// it gave none); `pages_in_flight` how many pages the walk had asked and not yet consumed at most (1 when it
/// follows next one page at a time): a record put first while several are in flight can move past a page
/// fetched ahead, so each write may cost that many records missed or seen twice. The walk's findings go into
/// `into`: as they are, or, when the evidence holds, with those rules' failures turned into a warning note
/// with the evidence. Returns whether writes explained them.
bool settle_writes_during_walk(const WalkState& walk, std::optional<std::uint64_t> count_now,
                               const Findings& walk_found, Findings& into, std::uint64_t pages_in_flight = 1);

/// Judges the walk rules over a walk along `next`, fed page by page (constant memory but for the seen ids).
class WalkChecker {
 public:
  /// It keeps a reference to context, which must outlive it (a temporary cannot be given).
  explicit WalkChecker(const CheckContext& context);
  explicit WalkChecker(CheckContext&&) = delete;
  /// Judges the page; false when the walk ends on it: next is null, or the page is empty yet its next
  /// is a link (walk_reaches_end reports that: against a server claiming a huge count it would go on).
  bool add(const Page& page, Findings& findings);
  /// The walk ended (on next == null, on the page cap or on an error).
  void finish(std::uint64_t page_cap, Findings& findings);
  /// The walk stopped at its byte cap (--byte-cap) after `bytes` bytes of bodies: walk_reaches_end fails.
  void finish_at_byte_cap(std::uint64_t byte_cap, std::uint64_t bytes, Findings& findings);
  /// The last page added has next == null.
  bool reached_end() const { return state_.reached_end; }
  /// The picture requests the walk sent, which its page cap counts too.
  void set_pictures(std::uint64_t pictures) { state_.pictures = pictures; }
  /// The walk so far, for what it says of writes while it went on (detail::WritesDuringWalk).
  const WalkState& state() const { return state_; }
  std::uint64_t records_seen() const { return state_.records_seen; }

 private:
  void end(Findings& findings);
  WalkState state_;
  std::vector<void (*)(WalkState&, const Page&, Findings&)> page_rules_;
  std::vector<void (*)(const WalkState&, Findings&)> end_rules_;
};

}  // namespace entimg::contract
