#pragma once
// The suite's own requests for pages, and the one function that fetches a page (where a page's `next`
// leads is links.hpp's).
#include <string>
#include <string_view>

#include "entimg/common/url.hpp"
#include "entimg/contract/http.hpp"
#include "entimg/contract/observation.hpp"

namespace entimg::contract::detail {

/// path + "?" + the parameters, percent-encoded (all but RFC 3986 unreserved characters).
std::string path_with_query(std::string_view path, const common::QueryParams& params);

/// The window limit=L&offset=O (offset left out when 0) after the extra parameters.
PageQuery window_query(std::uint64_t limit, std::uint64_t offset, common::QueryParams extra = {});

/// GET path with the query's parameters (and headers), parsed into a Page of the window the query asks
/// for: how every plan (the quick plan, the walk, the sides, record and diff) fetches a page.
Page fetch_page(Client& client, std::string_view path, const PageQuery& query, const Headers& headers = {});
/// The same, with the body left for parse_body: the walk parses on the threads that judge its pages, so
/// those that fetch have their next request out sooner.
Page fetch_page_unparsed(Client& client, std::string_view path, const PageQuery& query);

}  // namespace entimg::contract::detail
