#include "sides.hpp"

#include <algorithm>
#include <limits>

#include "entimg/contract/rules.hpp"
#include "json_access.hpp"
#include "query.hpp"

namespace entimg::contract::detail {
namespace {

// Each side asks its own URLs (a limit of its own, an offset from the seed), so that no side answers
// another's request out of a cache, and none is a page the rest of the plan asks.
constexpr std::uint64_t kFilterLimit = 2;
constexpr std::uint64_t kNegotiationLimit = 3;
constexpr std::uint64_t kCompressionLimit = 4;
constexpr std::uint64_t kProxyLimit = 6;
constexpr std::uint64_t kForwardedLimit = 8;
constexpr std::uint64_t kHostLimit = 7;
constexpr std::uint64_t kCorsLimit = 10;

// "scheme", "host[:port]" of a normalised origin.
std::pair<std::string, std::string> split_origin(const std::string& origin) {
  const std::size_t at = origin.find("://");
  if (at == std::string::npos) return {"http", origin};
  return {origin.substr(0, at), origin.substr(at + 3)};
}

// The same host with its port written the other way: "h:8000" → "h" (the scheme's default port), "h" →
// "h:443". (A normalised origin never writes a default port.)
std::string other_port_spelling(const std::string& scheme, const std::string& authority) {
  const std::size_t bracket = authority.rfind(']');
  const std::size_t colon = authority.rfind(':');
  if (colon != std::string::npos && (bracket == std::string::npos || colon > bracket))
    return authority.substr(0, colon);
  return authority + (scheme == "https" ? ":443" : ":80");
}

}  // namespace

void QuickCounts::judge(const CheckContext& context, const FirstPage& first, const Page& page) {
  check_against_first(context, first, page, found);
  if (const auto body = body_object(page))
    if (const auto count = as_count(member(*body, "count"))) counts.push_back(*count);
}

SidePlan::SidePlan(Client& client, const CheckContext& context, const RunOptions& options, Findings& findings,
                   Coverage& coverage, QuickCounts& counts)
    : client_(client),
      context_(context),
      options_(options),
      findings_(findings),
      coverage_(coverage),
      counts_(counts),
      state_(context),
      rng_(options.seed, 0x5d) {}

void SidePlan::learn_first_page(const Page& first) {
  const auto results = results_array(first);
  if (!results) return;
  std::vector<std::pair<std::string, std::size_t>> shown;  // entity, records, in the page's order
  for (const Json record : *results) {
    const std::string entity = integer_text(member(record, "entity"));
    if (entity.empty()) continue;
    auto at = std::find_if(shown.begin(), shown.end(), [&](const auto& e) { return e.first == entity; });
    if (at == shown.end()) at = shown.insert(shown.end(), {entity, 0});
    ++at->second;
    if (const auto id = record_id(record)) state_.first_page_ids[entity].push_back(*id);
  }
  std::size_t most = 0;
  for (const auto& [entity, records] : shown)
    if (records > most) {
      most = records;
      entity_ = entity;
    }
}

Page SidePlan::fetch(const std::string& path, common::QueryParams params, std::uint64_t limit,
                     std::uint64_t offset, const Headers& headers) {
  return fetch_page(client_, path, window_query(limit, offset, std::move(params)), headers);
}

void SidePlan::judge(const Page& page, bool same_collection, const Headers& asked, bool side_judges_origins,
                     const std::string& origin) {
  const std::size_t before = findings_.failures().size();
  CheckContext context = context_;
  if (!origin.empty()) context.origin = origin;
  check_page(context, page, findings_, side_judges_origins);
  if (same_collection && count_) counts_.judge(context_, {*count_, first_url_, "the first page"}, page);
  findings_.set_request_headers(before, asked);
  coverage_.add(page);
}

// The browsable HTML is not a page: the header rules that hold for any representation judge it.
void SidePlan::judge_html(const Page& page, const Headers& asked) {
  const std::size_t before = findings_.failures().size();
  check_any_representation(context_, page, findings_);
  findings_.set_request_headers(before, asked);
  coverage_.add(page);
}

void SidePlan::side(const SideAsk& ask, const Page& answer, const Page* other) {
  side(ask, answer, other, findings_);
}

void SidePlan::side(const SideAsk& ask, const Page& answer, const Page* other, Findings& into) {
  const std::size_t before = into.failures().size();
  check_side(state_, ask, answer, other, into);
  into.set_request_headers(before, ask.headers);
}

// An offset with records on both sides of the window, so that its answer has both links.
std::uint64_t SidePlan::offset_for(std::uint64_t limit) {
  const std::uint64_t count = count_.value_or(0);
  return count > limit + 1 ? 1 + rng_.next_u64() % (count - limit - 1) : 0;
}

void SidePlan::run(std::optional<std::uint64_t> count, const std::string& first_url) {
  count_ = count;
  // Without the first page's count, no filtered count can be said to exceed it.
  state_.collection_count = count.value_or(std::numeric_limits<std::uint64_t>::max());
  first_url_ = first_url;
  filters();
  negotiation();
  compression();
  proxy();
  host();
  cors();
}

namespace {

// Whether the answer lists as the unfiltered collection does: its count, and records (a page of the
// collection's head, which may hold only the entity asked for: the first records of a collection often share
// one); `other` is set when a record of another entity is among them.
bool lists_whole_collection(const Page& page, const std::string& entity, std::uint64_t collection_count,
                            bool& other) {
  const auto body = body_object(page);
  const auto results = results_array(page);
  if (!body || !results || as_count(member(*body, "count")) != collection_count) return false;
  if (collection_count > 0 && results->size() == 0) return false;
  for (const Json record : *results) {
    const std::string of = integer_text(member(record, "entity"));
    if (!of.empty() && of != entity) other = true;
  }
  return true;
}

}  // namespace

// A filtered page asked and judged: by the page rules, and by the filter's rule into `into`.
void SidePlan::ask_filtered(const SideAsk& ask, const std::string& path, common::QueryParams params,
                            std::uint64_t offset, Findings& into) {
  const Page page = fetch(path, std::move(params), kFilterLimit, offset);
  judge(page, false);
  side(ask, page, nullptr, into);
  all_unfiltered_ = all_unfiltered_ &&
                    lists_whole_collection(page, ask.entity, state_.collection_count, other_entity_seen_);
  if (offset > 0 || ask.nested) return;
  const auto body = body_object(page);
  const auto count = body ? as_count(member(*body, "count")) : std::nullopt;
  if (count && *count > kFilterLimit && *count <= state_.collection_count)
    ask_filtered(ask, path, {{"entity", ask.entity}}, (*count - 1) / kFilterLimit * kFilterLimit, into);
}

// An entity the first page shows (every page of its filter, the last one by its count) and one without
// images, each by ?entity= and on the nested route. A deployment whose every filtered answer lists the whole
// collection ignores the filter altogether, as edw's filter_class under django-filter 22.1 and later: a
// warning naming that cause, unless --require-filter; a filter that half-works is judged as it is.
void SidePlan::filters() {
  std::vector<std::string> entities;
  if (!entity_.empty()) entities.push_back(entity_);
  entities.emplace_back(kEntityWithoutImages);
  const std::string& collection = context_.collection_path;
  const std::string api =
      collection.substr(0, collection.size() - std::string_view("entities-images/").size());
  Findings filtered;
  for (const std::string& entity : entities) {
    ask_filtered({PlanSide::filter, "?entity=" + entity, {}, "", entity}, collection, {{"entity", entity}}, 0,
                 filtered);
    const std::string nested_path = api + "entities/" + entity + "/images/";
    ask_filtered({PlanSide::filter, nested_path, {}, "", entity, true}, nested_path, {}, 0, filtered);
  }
  state_.require_filter = options_.require_filter;
  state_.filter_ignored = all_unfiltered_ && other_entity_seen_ && count_.has_value();
  if (state_.filter_ignored && !options_.require_filter) {
    findings_.note(
        "entity_filter",
        "warning: the deployment ignores ?entity= altogether: ?entity=N and /edw/api/entities/N/images/ "
        "list the whole collection (count " +
            std::to_string(*count_) +
            "), as edw's filter_class does under django-filter 22.1 and later (reference §1.3); an app "
            "filtering by entity shows every record. --require-filter makes this a failure");
    findings_.pass("entity_filter");
  } else {
    findings_.merge(filtered);
  }
  filter_inputs();
}

// What a client may send as entity besides an id: not a number, nothing, a negative or a huge number, and
// the nested route with a pk that is not a number.
void SidePlan::filter_inputs() {
  const std::string& collection = context_.collection_path;
  const std::string api =
      collection.substr(0, collection.size() - std::string_view("entities-images/").size());
  for (const std::string_view value : {"abc", "", "-1", "9223372036854775807"}) {
    SideAsk ask{PlanSide::filter_input, "?entity=" + std::string(value), {}, "", std::string(value)};
    ask.lists_records = value.empty();
    const Page page = fetch(collection, {{"entity", std::string(value)}}, kFilterLimit, 0);
    if (page.exchange.status == 200) judge(page, false);
    side(ask, page, nullptr);
  }
  const std::string nested_path = api + "entities/abc/images/";
  const Page nested = fetch(nested_path, {}, kFilterLimit, 0);
  if (nested.exchange.status == 200) judge(nested, false);
  side({PlanSide::filter_input, nested_path, {}, "", "abc", true}, nested, nullptr);
}

// The same URL as the browsable HTML and then as JSON, another URL the other way round, and format=api.
void SidePlan::negotiation() {
  const Headers html_accept{{"Accept", std::string(kBrowserAccept)}};
  const Headers json_accept{{"Accept", "application/json"}};
  for (const bool html_first : {true, false}) {
    const std::uint64_t offset = offset_for(kNegotiationLimit);
    const std::string& path = context_.collection_path;
    const Page earlier = fetch(path, {}, kNegotiationLimit, offset, html_first ? html_accept : json_accept);
    const Page later = fetch(path, {}, kNegotiationLimit, offset, html_first ? json_accept : html_accept);
    const Page& html = html_first ? earlier : later;
    const Page& json = html_first ? later : earlier;
    SideAsk html_ask{PlanSide::negotiation, "Accept: text/html (a browser's Accept)", html_accept};
    html_ask.wants_html = true;
    html_ask.other_first = !html_first;
    SideAsk json_ask{PlanSide::negotiation, "Accept: application/json", json_accept};
    json_ask.other_first = html_first;
    side(html_ask, html, &json);
    side(json_ask, json, &html);
    judge_html(html, html_accept);
    judge(json, true, json_accept);
  }
  SideAsk api{PlanSide::negotiation, "format=api", {}};
  api.wants_html = true;
  const Page page =
      fetch(context_.collection_path, {{"format", "api"}}, kNegotiationLimit, offset_for(kNegotiationLimit));
  side(api, page, nullptr);
  judge_html(page, {});
}

// gzip, then the same URL plain (identity), then br: at most two answers held at once.
void SidePlan::compression() {
  const auto ask = [](std::string coding) {
    return SideAsk{PlanSide::compression, "Accept-Encoding: " + coding, {{"Accept-Encoding", coding}}};
  };
  SideAsk gzip_ask = ask("gzip"), plain_ask = ask("identity"), br_ask = ask("br");
  plain_ask.other_first = br_ask.other_first = true;
  const std::uint64_t offset = offset_for(kCompressionLimit);
  const std::string& path = context_.collection_path;
  std::optional<Page> gzip = fetch(path, {}, kCompressionLimit, offset, gzip_ask.headers);
  const Page plain = fetch(path, {}, kCompressionLimit, offset, plain_ask.headers);
  side(gzip_ask, *gzip, &plain);
  side(plain_ask, plain, &*gzip);
  judge(*gzip, true, gzip_ask.headers);
  judge(plain, true, plain_ask.headers);
  gzip.reset();
  const Page br = fetch(path, {}, kCompressionLimit, offset, br_ask.headers);
  side(br_ask, br, &plain);
  judge(br, true, br_ask.headers);
}

// A TLS-terminating proxy's view: X-Forwarded-Proto: https with X-Forwarded-Host, then Forwarded (RFC 7239),
// each followed by the same URL asked plainly.
void SidePlan::proxy() {
  const auto [scheme, authority] = split_origin(context_.origin);
  const std::string host = options_.alt_host.empty() ? authority : options_.alt_host;
  const std::string origin = "https://" + host;
  judge_origin_pair({PlanSide::proxy,
                     "X-Forwarded-Proto: https and X-Forwarded-Host: " + host,
                     {{"X-Forwarded-Proto", "https"}, {"X-Forwarded-Host", host}},
                     origin},
                    kProxyLimit, false);
  const std::string forwarded = "proto=https;host=\"" + host + "\"";
  judge_origin_pair({PlanSide::proxy, "Forwarded: " + forwarded, {{"Forwarded", forwarded}}, origin},
                    kForwardedLimit, false);
}

// A second host name (--alt-host, or the base host with its port written the other way): asked before the
// same URL plainly, and on another URL after it.
void SidePlan::host() {
  const auto [scheme, authority] = split_origin(context_.origin);
  const std::string second =
      options_.alt_host.empty() ? other_port_spelling(scheme, authority) : options_.alt_host;
  const SideAsk ask{PlanSide::host, "Host: " + second, {{"Host", second}}, scheme + "://" + second};
  judge_origin_pair(ask, kHostLimit, false);
  judge_origin_pair(ask, kHostLimit, true);
}

// The URL with the side's headers and plainly, in that order or the other: the side's rule judges the pair;
// the page rules judge both, the asked answer's origins being its rule's.
void SidePlan::judge_origin_pair(const SideAsk& ask, std::uint64_t limit, bool plain_first) {
  const std::uint64_t offset = offset_for(limit);
  const std::string& path = context_.collection_path;
  std::optional<Page> plain;
  if (plain_first) plain = fetch(path, {}, limit, offset);
  const Page asked = fetch(path, {}, limit, offset, ask.headers);
  if (!plain_first) plain = fetch(path, {}, limit, offset);
  SideAsk in_order = ask;
  in_order.other_first = plain_first;
  side(in_order, asked, &*plain);
  const auto verdict = state_.followed.find(ask.label);
  const bool followed = verdict != state_.followed.end() && verdict->second.first;
  judge(asked, true, ask.headers, true, followed ? ask.origin : context_.origin);
  judge(*plain, true);
}

}  // namespace entimg::contract::detail

namespace entimg::contract::detail {

// A page asked as a foreign web page's fetch asks it (Origin: kForeignOrigin): the CORS answer judged by
// cors_origin, the page by the page rules.
void SidePlan::cors() {
  const SideAsk ask{
      PlanSide::cors, "Origin: " + std::string(kForeignOrigin), {{"Origin", std::string(kForeignOrigin)}}};
  const Page page = fetch(context_.collection_path, {}, kCorsLimit, offset_for(kCorsLimit), ask.headers);
  side(ask, page, nullptr);
  judge(page, true, ask.headers);
}

}  // namespace entimg::contract::detail
