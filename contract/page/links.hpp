#pragma once
// Links (next, previous, image) as the checks and the walks read them: parsed into parameters, their
// origin normalised, and where a page's `next` leads.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "entimg/common/url.hpp"
#include "entimg/contract/observation.hpp"
#include "json_access.hpp"

namespace entimg::contract::detail {

/// A link (next/previous) as the checks read it.
struct Link {
  bool absolute = false;  ///< an http(s) URL with an authority
  common::UrlParts parts;
  common::QueryParams params;  ///< decoded, in order
};
Link parse_link(std::string_view url);
/// Every value of `key` among the parameters (copies: links are often temporaries).
std::vector<std::string> values_of(const common::QueryParams& params, std::string_view key);

/// Lower-cased "scheme://host[:port]" with the default port left out, or nullopt when not absolute http(s).
std::optional<std::string> normalised_origin(std::string_view url);

/// The request a correct walk makes next: the parameters of the page's `next` link, with the
/// window they ask for. nullopt when `next` is null, absent or not an absolute URL.
std::optional<PageQuery> next_link_query(const Page& page);

/// True when the page is a JSON object whose `next` is null.
bool next_is_null(const Page& page);

/// DRF's max_limit (LimitOffsetPagination.get_limit: min(limit, max_limit)): a page asked with a limit that
/// holds fewer records, min(L, count − offset), where its links carry one limit L below the one asked, was
/// capped at L and is judged by L; Page::capped_from keeps the limit asked. A page whose links step by the
/// limit asked is left as it is (a cap nobody is told of is page_length's failure). True when it adopted one.
bool adopt_capped_limit(Page& page);

}  // namespace entimg::contract::detail
