#include "query.hpp"

#include "json_access.hpp"

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

std::string path_with_query(std::string_view path, const common::QueryParams& params) {
  static constexpr common::PercentSafe kUnreserved = common::quote_safe("");  // quote(text, safe='')
  std::string out(path);
  for (std::size_t i = 0; i < params.size(); ++i) {
    out.push_back(i == 0 ? '?' : '&');
    common::append_quote(out, params[i].first, kUnreserved);
    out.push_back('=');
    common::append_quote(out, params[i].second, kUnreserved);
  }
  return out;
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

bool next_is_null(const Page& page) {
  if (!page.json) return false;
  const auto next = member(*page.json, "next");
  return next && next->is_null();
}

}  // namespace entimg::contract::detail
