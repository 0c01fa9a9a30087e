#include "links.hpp"

#include "decimal.hpp"
#include "entimg/common/ascii.hpp"
#include "message_text.hpp"

namespace entimg::contract::detail {
namespace {

// A window value as the suite understands it: plain ASCII digits, else the fallback.
std::uint64_t digits_or(const std::string* text, std::uint64_t fallback, bool zero_allowed) {
  if (!text || text->empty() || text->size() > 19 ||
      text->find_first_not_of("0123456789") != std::string::npos)
    return fallback;
  const std::uint64_t v = std::stoull(*text);
  return v == 0 && !zero_allowed ? fallback : v;
}

}  // namespace

Link parse_link(std::string_view url) {
  Link link;
  link.parts = common::split_url(url);
  link.absolute = link.parts.ok && (link.parts.scheme == "http" || link.parts.scheme == "https");
  std::string_view query;
  if (link.parts.ok) {
    query = link.parts.query;
  } else if (const std::size_t q = url.find('?'); q != std::string_view::npos) {
    query = url.substr(q + 1);
    query = query.substr(0, query.find('#'));
  }
  link.params = common::parse_query(query);
  return link;
}

std::vector<std::string> values_of(const common::QueryParams& params, std::string_view key) {
  std::vector<std::string> out;
  for (const auto& [k, v] : params)
    if (k == key) out.emplace_back(v);
  return out;
}

std::optional<std::string> normalised_origin(std::string_view url) {
  const common::UrlParts parts = common::split_url(url);
  if (!parts.ok || (parts.scheme != "http" && parts.scheme != "https")) return std::nullopt;
  std::string authority = common::ascii_lowered(parts.authority);
  // A port is the digits after the last ':' that follows any IPv6 literal's ']'.
  const std::size_t bracket = authority.rfind(']');
  const std::size_t colon = authority.rfind(':');
  if (colon != std::string::npos && (bracket == std::string::npos || colon > bracket)) {
    const std::string_view port = std::string_view(authority).substr(colon + 1);
    if (port.empty() || (parts.scheme == "http" && port == "80") ||
        (parts.scheme == "https" && port == "443"))
      authority.resize(colon);
  }
  return parts.scheme + "://" + authority;
}

std::optional<PageQuery> next_link_query(const Page& page) {
  if (!page.json) return std::nullopt;
  const auto next = as_string(member(*page.json, "next"));
  if (!next) return std::nullopt;
  const common::UrlParts url = common::split_url(*next);
  if (!url.ok) return std::nullopt;
  PageQuery q;
  q.label = "next of " + page.exchange.url;
  q.params = common::parse_query(url.query);
  q.effective_limit = digits_or(common::last_value(q.params, "limit"), 12, false);
  q.effective_offset = digits_or(common::last_value(q.params, "offset"), 0, true);
  return q;
}

bool adopt_capped_limit(Page& page) {
  const std::string* sent = common::last_value(page.sent, "limit");
  if (sent == nullptr || sent->empty() || std::to_string(page.effective_limit) != *sent) return false;
  const auto body = body_object(page);
  const auto results = results_array(page);
  const auto count = body ? as_count(member(*body, "count")) : std::nullopt;
  if (!results || !count) return false;
  std::optional<std::uint64_t> linked;
  for (const std::string_view key : {"next", "previous"}) {
    const auto url = as_string(member(*body, key));
    if (!url) continue;
    const std::vector<std::string> limits = values_of(parse_link(*url).params, "limit");
    if (limits.size() != 1 || limits[0].empty() ||
        limits[0].find_first_not_of("0123456789") != std::string::npos || limits[0].size() > 18)
      return false;
    const std::uint64_t limit = std::stoull(limits[0]);
    if (linked && *linked != limit) return false;
    linked = limit;
  }
  if (!linked || *linked == 0 || *linked >= page.effective_limit) return false;
  const std::uint64_t left = *count > page.effective_offset ? *count - page.effective_offset : 0;
  if (results->size() != std::min(*linked, left)) return false;
  page.capped_from = page.effective_limit;
  page.effective_limit = *linked;
  return true;
}

bool next_is_null(const Page& page) {
  if (!page.json) return false;
  const auto next = member(*page.json, "next");
  return next && next->is_null();
}

}  // namespace entimg::contract::detail
