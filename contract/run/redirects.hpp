#pragma once
// Redirects followed as a browser follows them: a bounded number of hops, each Location resolved against
// the URL that sent it. The client sends the suite's own headers (--header, --auth) only to the base URL's
// origin, so nothing secret goes with a hop to a CDN or storage host.
#include <cstddef>
#include <string>
#include <string_view>

#include "entimg/contract/checks.hpp"
#include "entimg/contract/http.hpp"

namespace entimg::contract::detail {

/// Redirects followed at most before Followed::error says so (browsers stop at 20; a deployment needs 1 or
/// 2).
inline constexpr std::size_t kMaxRedirects = 5;

/// The absolute URL a Location names, resolved against the URL of the answer that sent it (RFC 3986 §5.2:
/// absolute, scheme-relative, absolute-path, and relative references); "" when it cannot be (empty, or a
/// base that is not absolute http(s)).
std::string resolve_location(std::string_view base, std::string_view location);

/// GET url, then each redirect's Location (301, 302, 303, 307, 308), up to kMaxRedirects, with headers
/// (sent where the client sends them) and each body cut at body_cap bytes (0: the client's cap).
Followed get_following_redirects(Client& client, std::string url, const Headers& headers = {},
                                 std::size_t body_cap = 0);

}  // namespace entimg::contract::detail
