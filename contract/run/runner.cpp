// The plan of a run. Quick: a bounded set of pages and probes. Full: the same, plus a walk along
// `next` over the whole collection. Pages are judged by the page rules as they arrive; the walk
// rules see them in order.
#include "entimg/contract/runner.hpp"

#include <algorithm>
#include <functional>
#include <variant>

#include "coverage.hpp"
#include "entimg/common/prng.hpp"
#include "entimg/common/url.hpp"
#include "fetch_ahead.hpp"
#include "follow_ups.hpp"
#include "json_access.hpp"
#include "links.hpp"
#include "pictures.hpp"
#include "query.hpp"
#include "sides.hpp"

namespace entimg::contract {
namespace {

using Clock = std::chrono::steady_clock;

// A limit far beyond any collection that still fits the databases' 64-bit LIMIT arithmetic
// (DRF on SQLite answers 500 above 2^63; that is the database, not the contract).
constexpr std::uint64_t kHugeLimit = 4611686018427387904ULL;  // 2^62
// One page longer than the caps deployments put on limit (max_limit 100, 500, 1000): DRF's paginator has
// none, so a deployment that silently serves fewer records than asked shows here.
constexpr std::uint64_t kLongLimit = 1500;
// Records a full walk opens on the detail route, spread over the collection: one in kOpenedOneIn, and at
// least kOpenedAtLeast (every record of a smaller collection), so that a detail route failing 1 % of the
// records is met with a probability of at least 99 % (0.99^459 < 0.01).
constexpr std::uint64_t kOpenedOneIn = 600;
constexpr std::uint64_t kOpenedAtLeast = 460;

PageQuery query(std::string label, std::optional<std::uint64_t> limit, std::optional<std::uint64_t> offset,
                common::QueryParams extra = {}) {
  PageQuery q;
  q.label = std::move(label);
  q.params = std::move(extra);
  if (limit) q.params.emplace_back("limit", std::to_string(*limit));
  if (offset) q.params.emplace_back("offset", std::to_string(*offset));
  q.effective_limit = limit.value_or(12);
  q.effective_offset = offset.value_or(0);
  return q;
}

// Probes with values DRF replaces (reference §2.1): the expected window is the replacement.
PageQuery probe(std::string name, std::string value, std::uint64_t limit, std::uint64_t offset,
                common::QueryParams extra = {}) {
  PageQuery q;
  q.label = name + "=" + value;
  q.params = std::move(extra);
  q.params.emplace_back(std::move(name), std::move(value));
  q.effective_limit = limit;
  q.effective_offset = offset;
  return q;
}

class Run {
 public:
  Run(Client& client, const Schemas& schemas, const RunOptions& options)
      : client_(client), options_(options) {
    context_.origin = client.origin();
    if (options.public_url)
      if (const auto origin = origin_of(*options.public_url)) context_.origin = *origin;
    context_.collection_path = client.base_path() + "/edw/api/entities-images/";
    context_.order_key = options.order_key;
    context_.page_schema = &schemas.page;
    context_.record_schema = &schemas.record;
    context_.left_out = rules_left_out(options);
  }

  RunReport execute() {
    const auto started = Clock::now();
    RunReport report;
    report.base_url = client_.origin() + client_.base_path();
    report.mode = options_.mode;
    report.seed = options_.seed;
    if (const std::string fatal = quick(); !fatal.empty()) {
      report.fatal_error = fatal;
      report.fatal_failure = fatal_failure_;
    } else if (client_.out_of_time()) {  // the deadline or a signal came during the quick plan
      stopped_ = client_.refusal();
      unchecked_ =
          "the quick plan was cut short: the requests it had left were not sent (their rules fail "
          "with \"not sent\")" +
          std::string(options_.mode == Mode::Full ? "; the walk was not begun" : "");
    } else if (options_.mode == Mode::Full) {
      walk();
    }
    report.requests = client_.requests_sent();
    report.records_seen = walk_records_;
    report.count = seen_count_;
    report.walk_duration = walk_duration_;
    report.stopped = stopped_;
    report.unchecked = unchecked_;
    report.duration = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - started);
    fill_outcomes(report);
    report.coverage = coverage_.rows();
    return report;
  }

 private:
  std::optional<std::uint64_t> count_of(const Page& page) const {
    if (!page.json) return std::nullopt;
    return detail::as_count(detail::member(*page.json, "count"));
  }

  // The rules that need a page the plan picks, or two answers, are reached through their rows' steps:
  // the plan knows which answers each step compares, the rows say which rules judge them.
  void planned_page(PlanStep step, const Page& page) { check_planned(context_, step, page, findings_); }
  void page_pair(PlanStep step, const Page& a, const Page& b) { check_pair(context_, step, a, b, findings_); }

  // A page of the quick plan, judged alone and, past the first, against the first page's count; `role`
  // says which of its records' pictures the quick sample reads.
  Page get(const PageQuery& q, detail::PagePictures role = detail::PagePictures::spread) {
    Page page = detail::fetch_page(client_, context_.collection_path, q);
    if (page.capped_from != 0) last_cap_ = page.effective_limit;
    check_page(context_, page, findings_);
    if (pictures_) pictures_->add_page(page, role);
    if (seen_count_) counts_.judge(context_, {*seen_count_, first_url_, "the first page"}, page);
    coverage_.add(page);
    return page;
  }

  // Returns a reason when the deployment cannot be checked at all.
  std::string quick() {
    if (options_.mode == Mode::Quick)
      pictures_.emplace(client_, context_,
                        detail::PicturePlan{false, options_.images,
                                            std::max<std::size_t>(options_.picture_concurrency, 2), 0, true});
    std::optional<Page> first =
        get(query("first page", std::nullopt, std::nullopt), detail::PagePictures::edge);
    if (first->exchange.status == 0) {
      fatal_failure_ = first->exchange.failure;
      return "cannot check " + first->exchange.url + ": " + first->exchange.error;
    }
    seen_count_ = count_of(*first);
    if (seen_count_) counts_.counts.push_back(*seen_count_);
    first_url_ = first->exchange.url;
    const std::uint64_t count = seen_count_.value_or(0);
    planned_page(PlanStep::first_page, *first);
    detail::SidePlan sides(client_, context_, options_, findings_, coverage_, counts_);
    sides.learn_first_page(*first);

    // With bodies near the 64 MiB cap every page held is a body and its document, so no more than two
    // are held at once: what needs the whole first page comes first, then the first page goes.
    past_the_first_page(*first);
    page_pair(PlanStep::next_page, *first, get(query("second page", std::nullopt, 12)));
    page_pair(PlanStep::format_json,
              get(query("first page, format=json", std::nullopt, std::nullopt, {{"format", "json"}})),
              *first);
    const HttpExchange head = client_.request("HEAD", detail::path_with_query(context_.collection_path, {}));
    check_head(context_, *first, head, findings_);
    coverage_.add(head);
    first.reset();
    const HttpExchange options =
        client_.request("OPTIONS", detail::path_with_query(context_.collection_path, {}));
    check_options(context_, options, findings_);
    coverage_.add(options);

    common::Pcg32 rng(options_.seed, 0x51);
    const std::uint64_t middle = count > 1 ? rng.next_u64() % count : 0;
    {
      const Page mid = get(query("random middle page", 12, middle, {{"format", "json"}}));
      open_one(mid, false);
      page_pair(PlanStep::refetch, mid,
                get(query("random middle page again", 12, middle, {{"format", "json"}})));
    }
    follow_.slashless(count > 7 ? 7 : 0);
    const std::uint64_t last_offset = count == 0 ? 0 : (count - 1) / 12 * 12;
    open_one(get(query("last page", std::nullopt, last_offset), detail::PagePictures::edge), true);
    get(query("partial page, custom limit", 5, count > 3 ? count - 3 : 0));
    confirm_cap(
        get(query("long page, above the usual limit caps", kLongLimit, 0)).capped_from == 0 ? 0 : last_cap_);
    get(query("overflow page", std::nullopt, count + 7));

    probe_parameters(count);
    sides.run(seen_count_, first_url_);
    end_quick();
    return "";
  }

  // The quick plan's end: an unknown URL asked, the sample of pictures read, the counts settled.
  void end_quick() {
    follow_.unknown_url(options_.seed);
    if (pictures_) {
      pictures_->finish(findings_);
      pictures_.reset();
    }
    settle_counts();
    first_count_ = seen_count_.value_or(0);
  }

  // count_stable over the quick plan: a count that moved (one way) is settled with the first page asked
  // again.
  void settle_counts() {
    std::optional<std::uint64_t> count_now;
    const bool moved = std::any_of(counts_.counts.begin(), counts_.counts.end(),
                                   [&](std::uint64_t c) { return c != counts_.counts.front(); });
    if (moved) {
      const Page again = detail::fetch_page(client_, context_.collection_path,
                                            query("first page, asked again", std::nullopt, std::nullopt));
      coverage_.add(again);
      count_now = count_of(again);
      if (count_now) seen_count_ = count_now;
    }
    settle_quick_counts(counts_.counts, count_now, counts_.found, findings_);
  }

  // A record of another page than the first opened on the detail route: its last (or middle) record.
  void open_one(const Page& page, bool last) {
    const auto results = detail::results_array(page);
    const std::size_t listed = results ? results->size() : 0;
    if (listed == 0) return;
    const std::size_t index[] = {last ? listed - 1 : listed / 2};
    follow_.open_records(page, index);
  }

  // DRF's max_limit caps every limit above it: the long page capped at `cap` (0: it was not), a limit just
  // above the cap must be capped too. One honoured there was ignored above some threshold, not capped: a
  // page_length failure, as the long page would be without the cap its links carry.
  void confirm_cap(std::uint64_t cap) {
    if (cap == 0) return;
    const Page over = get(query("a limit just above the cap", cap + 1, 0));
    if (over.capped_from != 0 && over.effective_limit == cap) return;
    findings_.fail(
        {"page_length",
         "expected limit=" + std::to_string(cap + 1) + " capped at " + std::to_string(cap) + " as limit=" +
             std::to_string(kLongLimit) + " was (DRF's max_limit caps every limit above it), got it " +
             (over.exchange.status == 200 ? "not capped: a limit ignored above some threshold is no cap"
                                          : "answered with status " + std::to_string(over.exchange.status)),
         over.exchange.url, "/results", std::nullopt});
  }

  // A client opens the first page's first, middle and last records, and asks the page again with the
  // validators its answer gave (one more page held beside it at a time).
  void past_the_first_page(const Page& first) {
    const auto results = detail::results_array(first);
    const std::size_t listed = results ? results->size() : 0;
    std::vector<std::size_t> opened;  // each once
    for (const std::size_t index : {std::size_t{0}, listed / 2, listed - 1})
      if (index < listed && std::find(opened.begin(), opened.end(), index) == opened.end())
        opened.push_back(index);
    follow_.open_records(first, opened);
    follow_.revalidate(first, query("second page", std::nullopt, 12));
  }

  // The limits and offsets DRF replaces (not a number, zero, negative, huge, past the end), each judged
  // by the parameter_probe rows.
  void probe_parameters(std::uint64_t count) {
    const std::uint64_t tail = count > 2 ? count - 2 : 0;
    std::vector<PageQuery> probes = {probe("limit", "abc", 12, 0), probe("limit", "0", 12, 0),
                                     probe("limit", "-1", 12, 0)};
    // Near the end of the collection, so the answer holds two records; without a count that end is
    // unknown, and the probe would ask for the whole collection in one answer.
    if (seen_count_)
      probes.push_back(
          probe("limit", std::to_string(kHugeLimit), kHugeLimit, tail, {{"offset", std::to_string(tail)}}));
    else
      findings_.note("parameter_probe",
                     "limit=" + std::to_string(kHugeLimit) +
                         " not asked: the first page gave no count to ask near the end of");
    for (PageQuery q : {probe("offset", "abc", 12, 0), probe("offset", "-1", 12, 0),
                        probe("offset", std::to_string(count + 100), 12, count + 100)})
      probes.push_back(std::move(q));
    for (const PageQuery& q : probes)
      planned_page(PlanStep::parameter_probe, get(q));
  }

  void walk();
  void start_past_the_list(std::uint64_t pages_needed);
  void finish_past_the_list();
  void settle_walk(const WalkState& walk, const PageQuery& first_page);
  void probe_past_count(const WalkState& walk, const PageQuery& first_page);
  void judge_walk_page(detail::Fetched& item) const;
  void open_spread(const Page& page);
  void walk_sequential(PageQuery next, WalkChecker& walker, std::optional<Page>& previous, std::uint64_t cap);
  bool consume(Page page, Findings page_findings, WalkChecker& walker, std::optional<Page>& previous);
  void fill_outcomes(RunReport& report) const;
  bool over_byte_cap() const { return options_.byte_cap != 0 && walk_bytes() >= options_.byte_cap; }
  // What the walk's caps count: its pages and their pictures' requests, their bodies' bytes.
  std::uint64_t walk_requests() const { return walk_pages_ + (pictures_ ? pictures_->requests() : 0); }
  std::uint64_t walk_bytes() const { return walk_bytes_ + (pictures_ ? pictures_->bytes() : 0); }
  std::uint64_t walk_cap(std::uint64_t pages_needed);
  bool walk_must_stop(std::uint64_t cap) const;
  std::optional<PageQuery> walk_ahead(const std::function<PageQuery(std::uint64_t)>& page_query,
                                      std::uint64_t planned, std::uint64_t limit, WalkChecker& walker,
                                      std::optional<Page>& previous, std::uint64_t cap);
  void end_walk(WalkChecker& walker, std::uint64_t cap, const PageQuery& first_page,
                std::uint64_t pages_needed);

  Client& client_;
  const RunOptions& options_;
  CheckContext context_;
  Findings findings_;
  detail::Coverage coverage_;
  std::optional<detail::PictureChecks> pictures_;  // the pictures of the pages listed, loading
  std::optional<detail::RecordSample> records_;    // full: the walk's records opened, on threads of their own
  detail::FollowUps follow_{client_, context_, findings_};
  Findings walk_found_;         // what the walk rules found, settled against writes at the walk's end
  detail::QuickCounts counts_;  // count_stable on the quick plan's pages, settled against writes at its end
  // full: opened_want_ of every opened_of_ records walked are opened on the detail route (a running sum)
  std::uint64_t opened_of_ = 0, opened_want_ = 0, opened_sum_ = 0;
  std::uint64_t last_cap_ = 0;  // the limit the last capped page of the quick plan was capped at
  std::uint64_t first_count_ = 0;
  std::optional<std::uint64_t> seen_count_;
  FailureKind fatal_failure_ = FailureKind::none;  // the first page's, when it had no answer
  std::string first_url_;                          // the first page's, for count_stable's messages
  std::uint64_t walk_records_ = 0;
  std::uint64_t walk_pages_ = 0;
  std::uint64_t walk_bytes_ = 0;  // bodies read by the walk, against options_.byte_cap
  std::uint64_t page_cap_ = 0;    // the most pages the walk asks (walk_cap)
  Clock::time_point walk_started_;
  std::chrono::milliseconds walk_duration_{0};
  std::string stopped_;    // why the run stopped before its end (the deadline, a signal), or ""
  std::string unchecked_;  // what it left unchecked then
};

// Judges the page as part of the walk; false when the walk ends on it (WalkChecker::add).
bool Run::consume(Page page, Findings page_findings, WalkChecker& walker, std::optional<Page>& previous) {
  findings_.merge(page_findings);
  coverage_.add(page);
  const bool go_on = walker.add(page, walk_found_);
  // The first and the last page's pictures are read whole, as the quick sample reads them: files uploaded
  // last are the ones an aborted copy cuts.
  if (pictures_)
    pictures_->add_page(page,
                        go_on && walk_pages_ > 0 ? detail::PagePictures::spread : detail::PagePictures::edge);
  open_spread(page);
  // Into the walk's findings: records put first while it went on push the page before's last record across
  // the boundary, which settle_writes_during_walk weighs with the rest of the walk.
  if (previous) check_pair(context_, PlanStep::next_page, *previous, page, walk_found_);
  ++walk_pages_;
  walk_bytes_ += page.exchange.body.size();
  walk_records_ = walker.records_seen();
  if (options_.on_progress)
    options_.on_progress({walk_records_, first_count_, walk_pages_,
                          std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - walk_started_),
                          pictures_ ? pictures_->requests() : 0});
  previous = std::move(page);
  return go_on;
}

// A sample of the records walked, spread over the collection, opened on the detail route (kOpenedOneIn).
void Run::open_spread(const Page& page) {
  const auto results = detail::results_array(page);
  if (!results || opened_of_ == 0) return;
  std::vector<std::size_t> picked;
  for (std::size_t i = 0; i < results->size(); ++i) {
    opened_sum_ += opened_want_;
    if (opened_sum_ < opened_of_) continue;
    opened_sum_ -= opened_of_;
    picked.push_back(i);
  }
  if (!picked.empty() && records_) records_->open(page, picked);
}

// Follows `next` links one by one (their path and query, always on the base origin: a link to
// another host is reported by link_origin and never contacted).
void Run::walk_sequential(PageQuery next, WalkChecker& walker, std::optional<Page>& previous,
                          std::uint64_t cap) {
  while (!walk_must_stop(cap)) {
    Page page = detail::fetch_page(client_, context_.collection_path, next);
    if (page.exchange.attempts == 0 && client_.out_of_time()) return;  // not sent: the run was stopped
    Findings page_findings;
    check_page(context_, page, page_findings);
    const auto link = detail::next_link_query(page);
    if (!consume(std::move(page), std::move(page_findings), walker, previous) || !link) return;
    next = *link;
  }
}

// The walk's pictures load as it goes, and a sample of its records is opened, spread over the collection.
void Run::start_past_the_list(std::uint64_t pages_needed) {
  pictures_.emplace(
      client_, context_,
      detail::PicturePlan{true, options_.images, options_.picture_concurrency, first_count_, false});
  records_.emplace(client_, context_, options_.picture_concurrency);
  static_cast<void>(pages_needed);
  opened_of_ = first_count_;
  opened_want_ = std::min(first_count_, std::max(kOpenedAtLeast, first_count_ / kOpenedOneIn));
}

// The walk's own findings, with the first page asked again when its count grew: writes during the walk
// explain a growing count and records seen twice (settle_writes_during_walk), a paginator's faults do not.
void Run::settle_walk(const WalkState& walk, const PageQuery& first_page) {
  std::optional<std::uint64_t> count_now;
  const bool moved = walk.first_count && ((walk.max_count && *walk.max_count > *walk.first_count) ||
                                          (walk.min_count && *walk.min_count < *walk.first_count));
  if (walk.reached_end) probe_past_count(walk, first_page);
  if (walk.reached_end && moved) {
    const Page again = detail::fetch_page(client_, context_.collection_path, first_page);
    coverage_.add(again);
    count_now = count_of(again);
  }
  // A parallel walk has up to 3 x --concurrency pages asked ahead of the one it consumes (FetchAhead's
  // queue).
  const std::uint64_t in_flight = options_.concurrency <= 1 ? 1 : options_.concurrency * 3;
  settle_writes_during_walk(walk, count_now, walk_found_, findings_, in_flight);
}

// A complete walk ends where its last page's count says the collection ends: a page asked there lists no
// record. One that does shows records the count leaves out, a count cached while records were written (the
// walk saw "exactly" the count, the newer records out of its reach).
void Run::probe_past_count(const WalkState& walk, const PageQuery& first_page) {
  if (!walk.count) return;
  PageQuery past = query("past the walk's last count",
                         first_page.params.empty() ? std::nullopt : std::optional(first_page.effective_limit),
                         *walk.count);
  const Page page = detail::fetch_page(client_, context_.collection_path, past);
  check_page(context_, page, findings_);
  coverage_.add(page);
  const auto results = detail::results_array(page);
  const auto body = detail::body_object(page);
  const auto count = body ? detail::as_count(detail::member(*body, "count")) : std::nullopt;
  if (!results || results->size() == 0 || !count || *count > *walk.count) return;
  findings_.fail({"walk_count_matches",
                  "expected no record past the count the walk ended on (" + std::to_string(*walk.count) +
                      "), got " + std::to_string(results->size()) + " records at offset " +
                      std::to_string(*walk.count) + " under count " + std::to_string(*count) +
                      ": a count cached while records were written, the newer ones out of a client's reach",
                  page.exchange.url, "/results", std::nullopt});
}

void Run::finish_past_the_list() {
  pictures_->finish(findings_);
  pictures_.reset();
  records_->finish(findings_);
  records_.reset();
}

// A page fetched ahead, parsed and judged by the page rules on a judging thread.
void Run::judge_walk_page(detail::Fetched& item) const {
  parse_body(item.page);
  detail::adopt_capped_limit(item.page);
  check_page(context_, item.page, item.findings);
}

// The walk's caps: its pages (what the count needs plus 2, at most kMaxWalkPages), and its pages with the
// pictures they lead to (those pages and one a picture loaded, at most kMaxWalkRequests); --page-cap N caps
// pages and pictures together at N.
std::uint64_t Run::walk_cap(std::uint64_t pages_needed) {
  page_cap_ = std::min(pages_needed, kMaxWalkPages - 2) + 2;
  if (options_.page_cap) {
    page_cap_ = options_.page_cap;
    return options_.page_cap;
  }
  const ImagesChoice& images = options_.images;
  const std::uint64_t pictures = !context_.runs("image_loads") || images.kind == ImagesChoice::Kind::none ? 0
                                 : images.kind == ImagesChoice::Kind::sample
                                     ? std::min(images.sample, first_count_)
                                     : first_count_;
  return std::min(pages_needed + pictures, kMaxWalkRequests - 2) + 2;
}

// Whether the walk must stop before its next page: a cap reached, or the run's deadline or a signal.
bool Run::walk_must_stop(std::uint64_t cap) const {
  return walk_pages_ >= page_cap_ || walk_requests() >= cap || over_byte_cap() || !client_.budget_left();
}

// Fetches planned pages ahead on --concurrency threads and consumes them in order; returns the server's
// `next` to follow one by one from where it left the plan, if it did.
std::optional<PageQuery> Run::walk_ahead(const std::function<PageQuery(std::uint64_t)>& page_query,
                                         std::uint64_t planned, std::uint64_t limit, WalkChecker& walker,
                                         std::optional<Page>& previous, std::uint64_t cap) {
  // --concurrency threads fetch, as many parse and judge: a fetching thread has its next request out while
  // the page it brought is parsed and judged.
  detail::FetchAhead ahead(
      [&](std::uint64_t index) {
        return detail::Fetched{
            detail::fetch_page_unparsed(client_, context_.collection_path, page_query(index)), {}};
      },
      options_.concurrency, options_.concurrency * 3, planned,
      [&](detail::Fetched& item) { judge_walk_page(item); }, options_.concurrency);
  for (std::uint64_t index = 0; index < planned; ++index) {
    detail::Fetched item = ahead.next();
    if (item.page.exchange.attempts == 0 && client_.out_of_time()) return std::nullopt;  // not sent: stopped
    const auto link = detail::next_link_query(item.page);
    const bool last_planned = index + 1 == planned;
    const bool link_as_planned = link && !last_planned && link->effective_offset == (index + 1) * limit;
    if (!consume(std::move(item.page), std::move(item.findings), walker, previous) || !link) break;
    if (walk_must_stop(cap)) break;
    if (!link_as_planned) return link;  // the server's next differs from the plan: follow it from here
  }
  return std::nullopt;
}

void Run::walk() {
  walk_started_ = Clock::now();
  WalkChecker walker(context_);
  std::optional<Page> previous;
  const std::uint64_t limit = options_.walk_limit ? options_.walk_limit : 12;
  const std::uint64_t pages_needed =
      first_count_ == 0 ? 1 : first_count_ / limit + (first_count_ % limit != 0);
  start_past_the_list(pages_needed);
  const std::uint64_t cap = walk_cap(pages_needed);
  const std::function<PageQuery(std::uint64_t)> page_query = [&](std::uint64_t index) {
    const std::optional<std::uint64_t> sent_limit = options_.walk_limit ? std::optional(limit) : std::nullopt;
    return query("walk page " + std::to_string(index + 1), sent_limit,
                 index == 0 ? std::nullopt : std::optional(index * limit));
  };
  if (options_.concurrency <= 1) {
    walk_sequential(page_query(0), walker, previous, cap);
  } else {
    // The offsets of a correct walk are known, so pages are fetched ahead by several threads (and parsed and
    // judged by the page rules on as many more) and consumed in order; each page's `next` is still checked
    // to point at the following one. The fetching threads stop before the server's links are followed.
    const std::optional<PageQuery> follow =
        walk_ahead(page_query, std::min(pages_needed, page_cap_), limit, walker, previous, cap);
    if (follow && !walk_must_stop(cap)) walk_sequential(*follow, walker, previous, cap);
  }
  end_walk(walker, cap, page_query(0), pages_needed);
  walk_duration_ = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - walk_started_);
}

// The walk's end: its pictures finished, its rules judged; a walk the deadline or a signal stopped leaves its
// end rules unjudged and says what it left unchecked.
void Run::end_walk(WalkChecker& walker, std::uint64_t cap, const PageQuery& first_page,
                   std::uint64_t pages_needed) {
  if (client_.out_of_time() && !walker.reached_end()) {
    stopped_ = client_.refusal();
    pictures_->stop();
    const std::uint64_t left = pictures_->unchecked();
    const std::uint64_t records_left = records_->stop();
    unchecked_ = std::to_string(walk_pages_) + " of about " + std::to_string(pages_needed) +
                 " pages walked (" + std::to_string(walker.records_seen()) + " of " +
                 std::to_string(first_count_) + " records); " + std::to_string(left) + " pictures and " +
                 std::to_string(records_left) +
                 " records to open left unchecked; walk_reaches_end, walk_count_matches and the walk's "
                 "settling not judged";
    finish_past_the_list();
    findings_.merge(walk_found_);
    return;
  }
  const bool at_byte_cap = over_byte_cap();
  const std::uint64_t bytes = walk_bytes();
  // The cap that stopped it: its pages' (or where no cap did, as a walk that met an error), or its pages' and
  // pictures'.
  const bool at_request_cap = walk_requests() >= cap && (walk_pages_ < page_cap_ || options_.page_cap);
  const bool at_page_cap = !at_request_cap;
  if (at_request_cap) walker.set_pictures(walk_requests() - walk_pages_);
  finish_past_the_list();
  if (!walker.reached_end() && at_byte_cap)
    walker.finish_at_byte_cap(options_.byte_cap, bytes, walk_found_);
  else
    walker.finish(at_page_cap ? page_cap_ : cap, walk_found_);
  settle_walk(walker.state(), first_page);
}

void Run::fill_outcomes(RunReport& report) const {
  for (const Rule& rule : all_rules()) {
    RuleOutcome outcome;
    outcome.rule = &rule;
    outcome.selected = context_.runs(rule.name);
    outcome.checked = findings_.checked(rule.name);
    outcome.judged_for = findings_.judged_for(rule.name);
    // A fault repeated on every page of a long walk would make reports of hundreds of megabytes:
    // Findings keeps the first ones of each rule and counts the rest.
    for (const Failure& f : findings_.failures())
      if (f.rule == rule.name) outcome.failures.push_back(f);
    const std::uint64_t more = findings_.left_out(rule.name);
    outcome.failures_found = outcome.failures.size() + more;
    if (more > 0)
      outcome.failures.push_back({std::string(rule.name),
                                  "… and " + std::to_string(more) + " more failures of this rule", "", "",
                                  std::nullopt});
    for (const auto& [r, text] : findings_.notes())
      if (r == rule.name) outcome.notes.push_back(text);
    report.rules.push_back(std::move(outcome));
  }
}

}  // namespace

std::size_t RunReport::passed() const {
  return static_cast<std::size_t>(
      std::count_if(rules.begin(), rules.end(), [](const auto& r) { return r.passed(); }));
}
std::size_t RunReport::failed() const {
  return static_cast<std::size_t>(
      std::count_if(rules.begin(), rules.end(), [](const auto& r) { return r.failed(); }));
}
std::size_t RunReport::not_run() const {
  return static_cast<std::size_t>(
      std::count_if(rules.begin(), rules.end(), [](const auto& r) { return r.selected && r.checked == 0; }));
}

std::vector<std::string_view> rules_left_out(const RunOptions& options) {
  const auto listed = [](const std::vector<std::string>& names, std::string_view rule) {
    return std::find(names.begin(), names.end(), rule) != names.end();
  };
  std::vector<std::string_view> out;
  for (const Rule& rule : all_rules())
    if ((!options.only.empty() && !listed(options.only, rule.name)) || listed(options.skip, rule.name))
      out.push_back(rule.name);
  return out;
}

std::string nothing_to_check(const RunOptions& options) {
  CheckContext selection;
  selection.left_out = rules_left_out(options);
  std::string walk_rules;
  bool quick_rule = false;
  for (const Rule& rule : all_rules()) {
    if (!selection.runs(rule.name)) continue;
    if (!std::holds_alternative<WalkPages>(rule.check)) {
      quick_rule = true;
    } else {
      walk_rules += (walk_rules.empty() ? "" : ", ") + std::string(rule.name);
    }
  }
  if (!quick_rule && walk_rules.empty()) return "--only and --skip leave no rule to check";
  if (!quick_rule && options.mode == Mode::Quick)
    return "--only and --skip leave only rules of the full walk (" + walk_rules +
           "), which quick mode never checks: add --mode full, or name other rules";
  return "";
}

Schemas Schemas::load() {
  const auto dir = common::schema_dir();
  return {common::SchemaValidator::from_file(dir / "page.schema.json"),
          common::SchemaValidator::from_file(dir / "image-record.schema.json")};
}

RunReport run_contract(Client& client, const Schemas& schemas, const RunOptions& options) {
  RunReport report = Run(client, schemas, options).execute();
  return report;
}

}  // namespace entimg::contract
