#include "redirects.hpp"

#include <algorithm>
#include <vector>

namespace entimg::contract::detail {
namespace {

bool is_redirect(int status) {
  return status == 301 || status == 302 || status == 303 || status == 307 || status == 308;
}

// "http://host:8000" of an absolute http(s) URL; "" otherwise.
std::string_view scheme_and_authority(std::string_view url) {
  const std::size_t scheme = url.find("://");
  if (scheme == std::string_view::npos) return {};
  const std::string_view name = url.substr(0, scheme);
  if (name != "http" && name != "https") return {};
  const std::size_t path = url.find_first_of("/?#", scheme + 3);
  return url.substr(0, path == std::string_view::npos ? url.size() : path);
}

// RFC 3986 §5.2.4: "." and ".." segments of an absolute path taken out, as a browser does.
std::string without_dot_segments(std::string_view path) {
  std::vector<std::string_view> kept;
  std::size_t at = 1;  // past the leading '/'
  bool trailing_slash = false;
  while (at <= path.size()) {
    const std::size_t end = std::min(path.find('/', at), path.size());
    const std::string_view segment = path.substr(at, end - at);
    trailing_slash = segment == "." || segment == "..";
    if (segment == "..") {
      if (!kept.empty()) kept.pop_back();
    } else if (segment != ".") {
      kept.push_back(segment);
    }
    at = end + 1;
  }
  std::string out;
  for (const std::string_view segment : kept)
    out.append("/").append(segment);
  if (trailing_slash || out.empty()) out += '/';
  return out;
}

// The URL with the dot segments of its path taken out; its query kept as it is.
std::string normalised(std::string_view origin, std::string_view path_and_query) {
  const std::size_t query = path_and_query.find('?');
  std::string out(origin);
  out += without_dot_segments(path_and_query.substr(0, query));
  if (query != std::string_view::npos) out += path_and_query.substr(query);
  return out;
}

}  // namespace

std::string resolve_location(std::string_view base, std::string_view location) {
  const std::string_view origin = scheme_and_authority(base);
  if (location.empty() || origin.empty()) return "";
  if (const std::size_t fragment = location.find('#'); fragment != std::string_view::npos)
    location = location.substr(0, fragment);
  if (location.starts_with("//"))
    return std::string(base.substr(0, base.find("://") + 1)) + std::string(location);
  if (location.find("://") != std::string_view::npos) return std::string(location);
  if (location.starts_with('/')) return normalised(origin, location);
  // A relative reference: beside the base's last segment (or the base's path and query, for "?query").
  std::string_view path = base.substr(origin.size());
  path = path.substr(0, std::min(path.find('?'), path.find('#')));
  if (location.starts_with('?')) return std::string(origin) + std::string(path) + std::string(location);
  const std::size_t slash = path.rfind('/');
  const std::string_view dir =
      slash == std::string_view::npos ? std::string_view("/") : path.substr(0, slash + 1);
  return normalised(origin, std::string(dir) + std::string(location));
}

Followed get_following_redirects(Client& client, std::string url, const Headers& headers,
                                 std::size_t body_cap) {
  Followed got;
  std::vector<std::string> seen;
  for (;;) {
    got.hops.push_back(client.request("GET", url, headers, body_cap));
    const HttpExchange& answer = got.hops.back();
    if (!is_redirect(answer.status)) return got;
    if (got.hops.size() > kMaxRedirects) {
      got.error = "more than " + std::to_string(kMaxRedirects) + " redirects";
      return got;
    }
    const auto location = answer.header("Location");
    url = location ? resolve_location(answer.url, *location) : "";
    if (url.empty()) {
      got.error = "a " + std::to_string(answer.status) + " redirect without a Location it could follow";
      return got;
    }
    seen.push_back(answer.url);
    if (std::find(seen.begin(), seen.end(), url) != seen.end()) {
      got.error = "a redirect loop (back to " + url + ")";
      return got;
    }
  }
}

}  // namespace entimg::contract::detail
