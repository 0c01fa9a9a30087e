#include "routes.hpp"

#include <algorithm>

namespace entimg::mock::detail {
namespace {

// DRF's format-suffix twin of a route: `.<format>` with an optional trailing slash, format [a-z0-9]+.
std::optional<std::string> format_suffix(std::string_view rest) {
  if (!rest.starts_with('.')) return std::nullopt;
  rest.remove_prefix(1);
  if (rest.ends_with('/')) rest.remove_suffix(1);
  if (rest.empty() || !std::all_of(rest.begin(), rest.end(),
                                   [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }))
    return std::nullopt;
  return std::string(rest);
}

// Whether `path` (under /edw/api/) is `pattern` or its format-suffix twin; the captures go into `out`.
bool matches(std::string_view pattern, std::string_view path, Resolved& out) {
  const bool slash = pattern.ends_with('/');  // every pattern but the root's
  std::string_view stem = slash ? pattern.substr(0, pattern.size() - 1) : pattern;
  while (!stem.empty()) {
    if (stem.starts_with('{')) {  // a segment of [^/.]+, which a slash or a suffix ends
      const std::size_t close = stem.find('}');
      const std::size_t end = path.find_first_of("/.");
      if (end == 0 || end == std::string_view::npos) return false;
      const std::string value(path.substr(0, end));
      if (stem.substr(1, close - 1) == "pk")
        out.pk = value;
      else
        out.entity_pk = value;
      path.remove_prefix(end);
      stem.remove_prefix(close + 1);
    } else {
      const std::string_view literal = stem.substr(0, stem.find('{'));
      if (!path.starts_with(literal)) return false;
      path.remove_prefix(literal.size());
      stem.remove_prefix(literal.size());
    }
  }
  if (path == (slash ? "/" : "")) return true;
  auto format = format_suffix(path);
  if (format) out.format_suffix = std::move(*format);
  return format.has_value();
}

}  // namespace

Resolved resolve(std::string_view path) {
  if (!path.starts_with(kApiPath)) return {};
  const std::string_view rest = path.substr(kApiPath.size());
  for (const Route* route : kRoutes) {
    Resolved found;
    if (matches(route->pattern, rest, found)) {
      found.route = route;
      return found;
    }
  }
  return {};
}

}  // namespace entimg::mock::detail
