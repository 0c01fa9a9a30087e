#pragma once
// Building the suite's own requests, and reading where a page's `next` link points.
#include <optional>
#include <string>
#include <string_view>

#include "entimg/common/url.hpp"
#include "entimg/contract/observation.hpp"

namespace entimg::contract::detail {

/// path + "?" + the parameters, percent-encoded (all but RFC 3986 unreserved characters).
std::string path_with_query(std::string_view path, const common::QueryParams& params);

/// The request a correct walk makes next: the parameters of the page's `next` link, with the
/// window they ask for. nullopt when `next` is null, absent or not an absolute URL.
std::optional<PageQuery> next_link_query(const Page& page);

/// True when the page is a JSON object whose `next` is null.
bool next_is_null(const Page& page);

}  // namespace entimg::contract::detail
