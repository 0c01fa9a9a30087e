#include "shared_cache.hpp"

#include <algorithm>

#include "entimg/common/ascii.hpp"

namespace entimg::broken {
namespace {

// Bounds what a long run keeps: a cache evicts too.
constexpr std::size_t kMaxKeys = 4096;

// The header names a Vary value lists, lower-cased.
std::vector<std::string> vary_names(const mock::HttpResponse& answer) {
  std::vector<std::string> names;
  for (const auto& [name, value] : answer.headers) {
    if (!common::iequals_ascii(name, "Vary")) continue;
    std::string_view rest = value;
    while (!rest.empty()) {
      const std::size_t comma = rest.find(',');
      const std::string element = common::ascii_lowered(common::trim(rest.substr(0, comma)));
      rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
      if (!element.empty()) names.push_back(element);
    }
  }
  return names;
}

std::vector<std::string> values_of(const mock::HttpRequest& request, const std::vector<std::string>& names) {
  std::vector<std::string> out;
  for (const std::string& name : names)
    out.push_back(request.header(name).value_or(""));
  return out;
}

std::string key_of(const mock::HttpRequest& request, const CacheKeying& keying) {
  std::string key = request.target;
  if (keying.host) key += "\nHost: " + request.header("Host").value_or(request.server_authority);
  if (keying.forwarding)
    for (const char* name : {"X-Forwarded-Proto", "X-Forwarded-Host", "Forwarded"})
      key += std::string("\n") + name + ": " + request.header(name).value_or("");
  return key;
}

}  // namespace

mock::HttpResponse SharedCache::answer(
    const mock::HttpRequest& request,
    const std::function<mock::HttpResponse(const mock::HttpRequest&)>& upstream, const CacheKeying& keying) {
  if (request.method != "GET") return upstream(request);
  const std::string key = key_of(request, keying);
  {
    const std::lock_guard lock(mutex_);
    if (const auto found = entries_.find(key); found != entries_.end())
      for (const Entry& entry : found->second)
        if (!keying.vary || entry.values == values_of(request, entry.names)) return entry.answer;
  }
  mock::HttpResponse fresh = upstream(request);
  const bool canonical =
      request.header("Host").value_or(request.server_authority) == request.server_authority;
  if (fresh.status != 200 || (keying.canonical_only && !canonical)) return fresh;
  const std::lock_guard lock(mutex_);
  if (entries_.size() >= kMaxKeys) entries_.clear();
  std::vector<std::string> names = vary_names(fresh);
  std::vector<std::string> values = values_of(request, names);
  entries_[key].push_back({std::move(names), std::move(values), fresh});
  return fresh;
}

void SharedCache::clear() {
  const std::lock_guard lock(mutex_);
  entries_.clear();
}

}  // namespace entimg::broken
