#include "coverage.hpp"

#include <algorithm>
#include <charconv>
#include <limits>

#include "entimg/common/url.hpp"
#include "json_access.hpp"

namespace entimg::contract::detail {

/// What a request asked and what its answer said, as far as the coverage table cares.
struct CoveredRequest {
  std::string_view method;
  const common::QueryParams* params = nullptr;
  std::optional<std::uint64_t> count;    ///< the answer's
  std::optional<std::uint64_t> results;  ///< records in the answer
  std::uint64_t effective_limit = 12;
  const HttpExchange* exchange = nullptr;  ///< the request's own headers and URL

  const std::string* param(std::string_view name) const {
    return params ? common::last_value(*params, name) : nullptr;
  }
  bool get() const { return method == "GET"; }
  /// The header the request sent (besides the client's defaults), "" when none.
  std::string asked(std::string_view name) const {
    return exchange ? exchange->request_header(name).value_or("") : "";
  }
  /// The request asked through the nested route /edw/api/entities/<pk>/images/.
  bool nested() const {
    if (!exchange) return false;
    const common::UrlParts url = common::split_url(exchange->url);
    return url.ok && url.path.find("/edw/api/entities/") != std::string::npos &&
           url.path.ends_with("/images/");
  }
};

namespace {

// A parameter read as a whole number as a person reads Python's int(): a sign, digits, blanks around.
struct Whole {
  bool negative = false;
  std::uint64_t value = 0;  // saturated at the maximum
};

std::optional<Whole> whole(const std::string* text) {
  if (text == nullptr) return std::nullopt;
  std::string_view t = *text;
  while (!t.empty() && (t.front() == ' ' || t.front() == '\t'))
    t.remove_prefix(1);
  while (!t.empty() && (t.back() == ' ' || t.back() == '\t'))
    t.remove_suffix(1);
  Whole w;
  if (!t.empty() && (t.front() == '-' || t.front() == '+')) {
    w.negative = t.front() == '-';
    t.remove_prefix(1);
  }
  if (t.empty() || !std::all_of(t.begin(), t.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return std::nullopt;
  if (std::from_chars(t.data(), t.data() + t.size(), w.value).ec != std::errc{})
    w.value = std::numeric_limits<std::uint64_t>::max();
  if (w.value == 0) w.negative = false;
  return w;
}

bool positive(const std::optional<Whole>& w) {
  return w && !w->negative && w->value > 0;
}

using R = CoveredRequest;

// One DRF behaviour: its name, where it is described, and whether a request exercised it.
struct Behaviour {
  std::string_view name;
  std::string_view source;
  bool (*exercised)(const R&);
};

// The behaviours of DRF's LimitOffsetPagination and views a run can exercise, in the table's order: data,
// a row a behaviour.
constexpr Behaviour kBehaviours[] = {
    {"GET without limit or offset: the first page, PAGE_SIZE records", "spec §2.2 rule 4; reference §1.5",
     [](const R& r) { return r.get() && !r.param("limit") && !r.param("offset"); }},
    {"limit a positive whole number", "reference §2.1 (get_limit)",
     [](const R& r) { return r.get() && positive(whole(r.param("limit"))); }},
    {"limit not a whole number: DRF falls back to PAGE_SIZE", "reference §2.1 (_positive_int)",
     [](const R& r) { return r.get() && r.param("limit") && !whole(r.param("limit")); }},
    {"limit zero or negative: DRF falls back to PAGE_SIZE", "reference §2.1 (_positive_int)",
     [](const R& r) {
       const auto w = whole(r.param("limit"));
       return r.get() && w && !positive(w);
     }},
    {"limit at or above count: one page holds the rest", "reference §2.2",
     [](const R& r) {
       const auto w = whole(r.param("limit"));
       return r.get() && positive(w) && r.count && w->value >= *r.count;
     }},
    {"offset not a whole number, or negative: DRF reads 0", "reference §2.1 (get_offset)",
     [](const R& r) {
       const auto w = whole(r.param("offset"));
       return r.get() && r.param("offset") && (!w || w->negative);
     }},
    {"offset inside the collection", "spec §2.2 rule 2; reference §2.3",
     [](const R& r) {
       const auto w = whole(r.param("offset"));
       return r.get() && positive(w) && r.count && w->value < *r.count;
     }},
    {"offset at or beyond count: an empty page (overflow)", "reference §2.2",
     [](const R& r) {
       const auto w = whole(r.param("offset"));
       return r.get() && positive(w) && r.count && w->value >= *r.count;
     }},
    {"a partial page: fewer records than the limit", "reference §2.2",
     [](const R& r) { return r.get() && r.results && *r.results > 0 && *r.results < r.effective_limit; }},
    {"format=json", "spec §4.1 (format); reference §3.2",
     [](const R& r) { return r.get() && r.param("format") && *r.param("format") == "json"; }},
    {"no format parameter: content negotiation by Accept", "spec §4.1; reference §3.1",
     [](const R& r) { return r.get() && !r.param("format"); }},
    {"HEAD", "spec §4.2; reference §3.3", [](const R& r) { return r.method == "HEAD"; }},
    {"OPTIONS", "spec §4.2; reference §3.4", [](const R& r) { return r.method == "OPTIONS"; }},
    {"?entity=N: the entity's records alone (django-filter)", "reference §1.3, M10",
     [](const R& r) { return r.get() && r.param("entity") && !r.nested(); }},
    {"the nested route /edw/api/entities/N/images/", "reference §1.2, §5.5",
     [](const R& r) { return r.get() && r.nested(); }},
    {"Accept: text/html or format=api: the browsable API", "spec §4.1 (format); reference §3.9",
     [](const R& r) {
       const std::string* format = r.param("format");
       return r.get() &&
              ((format && *format == "api") || r.asked("Accept").find("text/html") != std::string::npos);
     }},
    {"Accept-Encoding: a compressed answer, or a plain one", "RFC 9110 §8.4; reference §1.5 (GZipMiddleware)",
     [](const R& r) { return r.get() && !r.asked("Accept-Encoding").empty(); }},
    {"X-Forwarded-Proto/-Host or Forwarded: a proxy's view", "reference §2.5, M3",
     [](const R& r) {
       return r.get() &&
              !(r.asked("X-Forwarded-Host") + r.asked("X-Forwarded-Proto") + r.asked("Forwarded")).empty();
     }},
    {"Host: another host name for the same deployment", "reference §2.5",
     [](const R& r) {
       const std::string host = r.asked("Host");
       return r.get() && !host.empty() && r.exchange && common::split_url(r.exchange->url).authority != host;
     }},
};

// "GET /edw/api/entities-images/?limit=abc": the request as a person would type it after the origin.
std::string example_of(const HttpExchange& exchange) {
  const common::UrlParts url = common::split_url(exchange.url);
  if (!url.ok) return exchange.method + " " + exchange.url;
  return exchange.method + " " + url.path + (url.has_query ? "?" + url.query : "");
}

}  // namespace

Coverage::Coverage() {
  for (const Behaviour& b : kBehaviours)
    rows_.push_back({b.name, b.source, 0, {}, {}});
}

void Coverage::add(const Page& page) {
  CoveredRequest request{page.exchange.method, &page.sent,           std::nullopt,
                         std::nullopt,         page.effective_limit, &page.exchange};
  if (page.json) {
    request.count = as_count(member(*page.json, "count"));
    const auto results = member(*page.json, "results");
    if (results && results->is_array()) request.results = results->get_array().value_unsafe().size();
  }
  add(request, page.exchange);
}

void Coverage::add(const HttpExchange& exchange) {
  add(CoveredRequest{exchange.method, nullptr, std::nullopt, std::nullopt, 12, &exchange}, exchange);
}

void Coverage::add(const CoveredRequest& request, const HttpExchange& exchange) {
  for (std::size_t i = 0; i < std::size(kBehaviours); ++i) {
    if (!kBehaviours[i].exercised(request)) continue;
    CoverageRow& row = rows_[i];
    if (row.requests++ == 0) row.example = example_of(exchange);
    const auto at = std::lower_bound(row.statuses.begin(), row.statuses.end(), exchange.status);
    if (at == row.statuses.end() || *at != exchange.status) row.statuses.insert(at, exchange.status);
  }
}

}  // namespace entimg::contract::detail
