// Rules on the next/previous links and on the origin of every URL a page carries.
#include <algorithm>
#include <map>

#include "checks_links.hpp"

#include "decimal.hpp"
#include "entimg/contract/checks.hpp"
#include "failure_budget.hpp"
#include "json_access.hpp"
#include "json_parse.hpp"
#include "links.hpp"
#include "message_text.hpp"
#include "rule_tables.hpp"

namespace entimg::contract {
namespace {

using detail::Json;
using NJson = nlohmann::json;
using detail::quote;

std::string window_text(const Page& page) {
  return "offset " + std::to_string(page.effective_offset) + ", limit " +
         std::to_string(page.effective_limit);
}

// "offset=\"24\"", "no offset" or "offset=\"1\"&offset=\"2\"": what a link carried, for messages.
std::string offsets_text(const std::vector<std::string>& offsets) {
  if (offsets.empty()) return "no offset";
  std::string out;
  for (const std::string& o : offsets)
    out += (out.empty() ? "offset=" : "&offset=") + quote(o);
  return out;
}

// The link member when it is null or a string; nullopt otherwise (page_schema reports the rest).
std::optional<Json> link_member(Json body, const char* key) {
  const auto link = detail::member(body, key);
  return link && (link->is_null() || link->is_string()) ? link : std::nullopt;
}

// The text of a link link_member returned (null: "").
std::string_view link_text(Json link) {
  return link.is_string() ? link.get_string().value_unsafe() : std::string_view{};
}

// The path of a request URL (absolute or origin-relative), percent-decoded.
std::string decoded_request_path(std::string_view url) {
  const common::UrlParts parts = common::split_url(url);
  if (parts.ok) return common::percent_decode(parts.path, false);
  return common::percent_decode(url.substr(0, url.find_first_of("?#")), false);
}

// The paths a link may have: the request's, and the collection path unless the request used a
// format suffix (/entities-images.json), whose links keep the suffix (reference §5.6). The second
// one covers --public-url deployments whose public prefix differs from the base URL's.
std::vector<std::string> accepted_link_paths(const CheckContext& context, const Page& page) {
  std::vector<std::string> paths{decoded_request_path(page.exchange.url)};
  const std::string collection = common::percent_decode(context.collection_path, false);
  std::string stem = collection;
  if (!stem.empty() && stem.back() == '/') stem.pop_back();
  const bool suffix_variant = !stem.empty() && paths[0].starts_with(stem + ".");
  if (!suffix_variant && !collection.empty() && collection != paths[0]) paths.push_back(collection);
  return paths;
}

using ParamList = std::vector<std::pair<std::string, std::string>>;

// The parameters other than limit and offset, sorted: a multiset to compare. Invalid UTF-8 becomes
// U+FFFD on both sides, as DRF re-encodes it so (reference §2.4).
ParamList other_params(const common::QueryParams& params) {
  ParamList out;
  for (const auto& [k, v] : params)
    if (k != "limit" && k != "offset")
      out.emplace_back(common::utf8_replace_invalid(k), common::utf8_replace_invalid(v));
  std::sort(out.begin(), out.end());
  return out;
}

std::string params_text(const ParamList& params) {
  std::string out;
  for (std::size_t i = 0; i < params.size() && i < 5; ++i)
    out += (i ? ", " : "") + quote(params[i].first + "=" + params[i].second);
  if (params.size() > 5) out += " and " + std::to_string(params.size() - 5) + " more";
  return out;
}

// What is wrong with one link's path and parameters, or "" (links_keep_parameters).
std::string link_parameter_problem(const detail::Link& link, const std::vector<std::string>& paths,
                                   const ParamList& sent, std::uint64_t limit) {
  std::vector<std::string> problems;
  const std::string path = common::percent_decode(link.parts.path, false);
  if (std::find(paths.begin(), paths.end(), path) == paths.end())
    problems.push_back("expected path " + quote(paths.front()) + ", got " + quote(path));
  const auto limits = detail::values_of(link.params, "limit");
  if (limits.size() != 1 || !detail::is_decimal_equal(limits[0], detail::decimal(limit))) {
    std::string got = limits.empty() ? "none" : "";
    for (const auto& l : limits)
      got += (got.empty() ? "" : ", ") + quote(l);
    problems.push_back("expected one limit=" + detail::decimal(limit) + " (the effective limit), got " + got);
  }
  if (const auto offsets = detail::values_of(link.params, "offset"); offsets.size() > 1)
    problems.push_back("expected at most one offset, got " + std::to_string(offsets.size()));
  const ParamList carried = other_params(link.params);
  if (carried != sent) {
    ParamList missing, extra;
    std::set_difference(sent.begin(), sent.end(), carried.begin(), carried.end(),
                        std::back_inserter(missing));
    std::set_difference(carried.begin(), carried.end(), sent.begin(), sent.end(), std::back_inserter(extra));
    if (!missing.empty()) problems.push_back("missing sent parameter(s) " + params_text(missing));
    if (!extra.empty()) problems.push_back("parameter(s) never sent " + params_text(extra));
  }
  std::string out;
  for (const auto& p : problems)
    out += (out.empty() ? "" : "; ") + p;
  return out;
}

/// "next is null exactly when offset + limit ≥ count, else its offset is offset + limit" (spec §2.2
/// rule 2, §4.1 rule 2; reference §2.3 C3 / DRF pagination.py get_next_link).
void next_link_offset(const CheckContext&, const Page& page, Findings& findings) {
  const auto body = detail::body_object(page);
  if (!body) return;
  const auto count = detail::as_count(detail::member(*body, "count"));
  const auto next = link_member(*body, "next");
  if (!count || !next) return;
  const std::uint64_t limit = page.effective_limit, offset = page.effective_offset;
  const bool last = limit >= *count || offset >= *count - limit;  // offset + limit >= count, without overflow
  const std::string sum = detail::add_decimal(offset, limit);
  const std::string where = " (" + window_text(page) + ", count " + std::to_string(*count) + ")";
  std::string problem;
  if (last) {
    if (!next->is_null())
      problem = "expected next null as offset + limit ≥ count" + where + ", got " + quote(link_text(*next));
  } else if (next->is_null()) {
    problem = "expected next with offset=" + sum + " as offset + limit < count" + where + ", got null";
  } else {
    const auto offsets = detail::values_of(detail::parse_link(link_text(*next)).params, "offset");
    if (offsets.size() != 1 || !detail::is_decimal_equal(offsets[0], sum))
      problem = "expected next to carry offset=" + sum + where + ", got " + offsets_text(offsets);
  }
  if (problem.empty()) {
    findings.pass("next_link_offset");
  } else {
    findings.fail({"next_link_offset", problem, page.exchange.url, "/next", std::nullopt});
  }
}

/// "previous is null exactly when offset ≤ 0, else its offset is offset − limit" (spec §2.2 rule 2);
/// where offset − limit ≤ 0 DRF drops the offset (reference §2.3 C4), the spec would say 0: both pass.
void previous_link_offset(const CheckContext&, const Page& page, Findings& findings) {
  const auto body = detail::body_object(page);
  if (!body) return;
  const auto previous = link_member(*body, "previous");
  if (!previous) return;
  const std::uint64_t limit = page.effective_limit, offset = page.effective_offset;
  const std::string where = " (" + window_text(page) + ")";
  std::string problem;
  if (offset == 0) {
    if (!previous->is_null())
      problem =
          "expected previous null on a page at offset 0" + where + ", got " + quote(link_text(*previous));
  } else if (previous->is_null()) {
    problem = "expected a previous link as offset > 0" + where + ", got null";
  } else {
    const auto offsets = detail::values_of(detail::parse_link(link_text(*previous)).params, "offset");
    if (offset <= limit) {
      if (offsets.empty()) {
        findings.note("previous_link_offset", "previous drops offset when offset-limit <= 0 (DRF)");
      } else if (offsets.size() == 1 && detail::is_decimal_equal(offsets[0], "0")) {
        findings.note("previous_link_offset", "previous carries offset=0 (spec §2.2 rule 2)");
      } else {
        problem =
            "expected previous without offset (DRF, as offset − limit ≤ 0) or with offset=0 (spec §2.2 rule "
            "2)" +
            where + ", got " + offsets_text(offsets);
      }
    } else if (offsets.size() != 1 ||
               !detail::is_decimal_equal(offsets[0], detail::decimal(offset - limit))) {
      problem = "expected previous to carry offset=" + detail::decimal(offset - limit) + where + ", got " +
                offsets_text(offsets);
    }
  }
  if (problem.empty()) {
    findings.pass("previous_link_offset");
  } else {
    findings.fail({"previous_link_offset", problem, page.exchange.url, "/previous", std::nullopt});
  }
}

/// "The next and previous addresses are built on the collection path and carry the query parameters"
/// (spec §2.2 rule 1): absolute, the request's path, limit = the effective limit, every other sent
/// parameter kept (reference §2.4: sorted and re-encoded, so parameters are compared parsed).
void links_keep_parameters(const CheckContext& context, const Page& page, Findings& findings) {
  const auto body = detail::body_object(page);
  if (!body) return;
  std::vector<std::string> paths;
  ParamList sent;
  bool prepared = false;
  for (const char* key : {"next", "previous"}) {
    const auto link = detail::as_string(detail::member(*body, key));
    if (!link) continue;
    const std::string_view url = *link;
    const detail::Link parsed = detail::parse_link(url);
    std::string problem;
    if (!parsed.absolute) {
      problem = "expected an absolute http(s) URL, got " + quote(url);
    } else {
      if (!prepared) {
        paths = accepted_link_paths(context, page);
        sent = other_params(page.sent);
        prepared = true;
      }
      problem = link_parameter_problem(parsed, paths, sent, page.effective_limit);
    }
    if (problem.empty()) {
      findings.pass("links_keep_parameters");
    } else {
      findings.fail({"links_keep_parameters",
                     std::string(key) + ": " + problem + " (link " + quote(url) + ")", page.exchange.url,
                     std::string("/") + key, std::nullopt});
    }
  }
}

// What is wrong with a URL's origin against `own` (a normalised origin): "" when nothing is.
std::string origin_problem(std::string_view url, const std::string& own) {
  // Fast path for the common case: the URL starts with the expected origin as written.
  if (url.size() > own.size() && url.starts_with(own) && url[own.size()] == '/') return "";
  const auto origin = detail::normalised_origin(url);
  if (!origin) return "not an absolute http(s) URL";
  return *origin == own ? "" : *origin;
}

// link_origin over the records' images: one failure per wrong origin and page, since a proxy rewriting
// every image would otherwise flood the report.
void image_origins(const Page& page, const std::string& own, const detail::RecordRange& results,
                   Findings& findings) {
  struct Wrong {
    std::size_t records = 0;
    std::size_t first = 0;
    Json record;
    std::string_view image;
  };
  std::map<std::string, Wrong> wrong;
  std::uint64_t passed = 0;
  std::size_t i = 0;
  for (const RecordMembers& record : results) {
    const std::size_t index = i++;
    const auto image = detail::as_string(record.image());
    if (!image) continue;
    const std::string got = origin_problem(*image, own);
    if (got.empty()) {
      ++passed;
      continue;
    }
    auto& w = wrong[got];
    if (w.records++ == 0) {
      w.first = index;
      w.record = record.record;
      w.image = *image;
    }
  }
  findings.pass("link_origin", passed);
  std::size_t reported = 0;
  for (const auto& [got, w] : wrong) {
    if (++reported > detail::kFailuresPerPage) break;
    findings.fail({"link_origin",
                   "expected image URLs on " + own + ", got " + got + " in " + std::to_string(w.records) +
                       " of " + std::to_string(results.size()) + " records (first: " + quote(w.image) + ")",
                   page.exchange.url, detail::record_pointer(w.first, "image"), detail::record_id(w.record)});
  }
}

/// "Public address … under {base_url}" (spec §2.1) and links on the request's host (reference §2.5):
/// scheme, host and port of next, previous and every image equal the base (or public) URL's.
void link_origin(const CheckContext& context, const Page& page, Findings& findings) {
  const auto body = detail::body_object(page);
  if (!body || context.origin.empty()) return;
  const std::string own = detail::normalised_origin(context.origin).value_or(context.origin);
  for (const char* key : {"next", "previous"}) {
    const auto link = detail::as_string(detail::member(*body, key));
    if (!link) continue;
    const std::string_view url = *link;
    if (const std::string got = origin_problem(url, own); got.empty()) {
      findings.pass("link_origin");
    } else {
      findings.fail({"link_origin",
                     "expected " + std::string(key) + " on " + own + ", got " + got + " (" + quote(url) + ")",
                     page.exchange.url, std::string("/") + key, std::nullopt});
    }
  }
  if (const auto results = detail::result_records(page)) image_origins(page, own, *results, findings);
}

constexpr Rule kLinkRules[] = {
    {"next_link_offset", "links",
     "next is null exactly when offset+limit ≥ count, else carries offset=offset+limit",
     "spec §2.2 rule 2, §4.1 rule 2; reference §2.3, C3 / DRF pagination.py", EveryPage{next_link_offset}},
    {"previous_link_offset", "links",
     "previous is null exactly when offset ≤ 0, else carries offset−limit (dropped or 0 when ≤ 0)",
     "spec §2.2 rule 2, §4.1 rule 2; reference §2.3, C4 / DRF pagination.py",
     EveryPage{previous_link_offset}},
    {"links_keep_parameters", "links",
     "links are absolute, on the request's path, carry limit=<effective limit> and every other sent "
     "parameter",
     "spec §2.2 rule 1; reference §2.4, C5 / DRF utils/urls.py", EveryPage{links_keep_parameters}},
    {"link_origin", "origin", "next, previous and image URLs use the base URL's scheme, host and port",
     "spec §2.1 (image under {base_url}); reference §2.5, M3", EveryPage{link_origin, Reads::link_origins}},
};

}  // namespace

std::span<const Rule> detail::link_rules() {
  return kLinkRules;
}

void detail::check_link_limits(Json body, std::string_view expected, std::string_view why,
                               FailureBudget& budget) {
  for (const char* key : {"next", "previous"}) {
    const auto link = as_string(member(body, key));
    if (!link) continue;
    const auto parsed = parse_link(*link);
    const auto limits = values_of(parsed.params, "limit");
    if (limits.size() == 1 && is_decimal_equal(limits[0], expected)) {
      budget.pass();
      continue;
    }
    std::string got = limits.empty() ? "no limit" : "limit=";
    for (std::size_t i = 0; i < limits.size(); ++i)
      got += (i ? "&limit=" : "") + quote(limits[i]);
    budget.fail(std::string("expected ") + key + " to carry limit=" + std::string(expected) + " (" +
                    std::string(why) + "), got " + got,
                std::string("/") + key);
  }
}

}  // namespace entimg::contract
