#pragma once
// Building the suite's own requests (where a page's `next` leads is links.hpp's).
#include <string>
#include <string_view>

#include "entimg/common/url.hpp"

namespace entimg::contract::detail {

/// path + "?" + the parameters, percent-encoded (all but RFC 3986 unreserved characters).
std::string path_with_query(std::string_view path, const common::QueryParams& params);

}  // namespace entimg::contract::detail
