#include "links.hpp"

#include "decimal.hpp"
#include "entimg/common/ascii.hpp"
#include "message_text.hpp"

namespace entimg::contract::detail {

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

void check_link_limits(Json body, std::string_view expected, std::string_view why, FailureBudget& budget) {
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

}  // namespace entimg::contract::detail
