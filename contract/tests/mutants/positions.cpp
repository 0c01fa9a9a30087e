#include "positions.hpp"

#include <algorithm>

#include "broken/answer_edit.hpp"

namespace entimg::mutants::detail {

using broken::number_param;

std::uint64_t effective_offset(const Call& c) {
  return number_param(c.params, "offset").value_or(0);
}

bool is_walk_page(const Call& c, std::uint64_t offset) {
  if (c.request.method != "GET") return false;
  if (offset == 0 && c.params.empty()) return true;
  const bool limit_ok = std::all_of(c.params.begin(), c.params.end(), [](const auto& p) {
    return p.first == "offset" || (p.first == "limit" && p.second == "12");
  });
  return limit_ok && number_param(c.params, "offset") == offset &&
         std::count_if(c.params.begin(), c.params.end(), [](const auto& p) { return p.first == "offset"; }) ==
             1;
}

Position first_page() {
  return {"on the first page", Visibility::Quick,
          [](const Call& c) { return c.request.method == "GET" && c.params.empty(); }};
}

Position second_page() {
  return {"on the second page", Visibility::Quick, [](const Call& c) { return is_walk_page(c, 12); }};
}

Position last_page(const World& w) {
  const std::uint64_t last = w.last_offset();
  return {"on the last page (offset " + std::to_string(last) + ")", Visibility::Quick,
          [last](const Call& c) { return is_walk_page(c, last); }};
}

std::optional<Position> deep_page(const World& w, common::Pcg32& rng) {
  const std::uint64_t pages = w.last_offset() / 12;  // the last page's index
  if (pages < 3) return std::nullopt;                // no page besides 0, 12 and the last
  const std::uint64_t offset =
      12 * static_cast<std::uint64_t>(rng.between(2, static_cast<std::int64_t>(pages) - 1));
  return Position{"on a deep page (offset " + std::to_string(offset) + ")", Visibility::Full,
                  [offset](const Call& c) { return is_walk_page(c, offset); }};
}

Position every_page() {
  return {"on every page", Visibility::Quick, [](const Call& c) { return c.request.method == "GET"; }};
}

Position long_page() {
  return {"on the long page (limit=1500)", Visibility::Quick,
          [](const Call& c) { return c.request.method == "GET" && number_param(c.params, "limit") == 1500; }};
}

Position format_json_pages() {
  return {"on pages asked with format=json", Visibility::Quick, [](const Call& c) {
            const std::string* format = common::last_value(c.params, "format");
            return c.request.method == "GET" && format != nullptr && *format == "json";
          }};
}

Position limit_probes() {
  return {"on pages asked with limit=abc, 0 or -1", Visibility::Quick, [](const Call& c) {
            const std::string* limit = common::last_value(c.params, "limit");
            return c.request.method == "GET" && limit != nullptr &&
                   (*limit == "abc" || *limit == "0" || *limit == "-1");
          }};
}

Position nth_request(std::uint64_t n) {
  // The quick plan sends over 20 requests, so every nth with n below that reaches it.
  return {"on every " + std::to_string(n) + "th request", Visibility::Quick,
          [n](const Call& c) { return c.nth % n == 0; }};
}

Position head_requests() {
  return {"on HEAD", Visibility::Quick, [](const Call& c) { return c.request.method == "HEAD"; }};
}

Position options_requests() {
  return {"on OPTIONS", Visibility::Quick, [](const Call& c) { return c.request.method == "OPTIONS"; }};
}

bool is_nested(const Call& c) {
  const std::string_view path = broken::path_of(c.request);
  constexpr std::string_view kStart = "/edw/api/entities/", kEnd = "/images/";
  return path.starts_with(kStart) && path.ends_with(kEnd) && path.size() > kStart.size() + kEnd.size() &&
         path.substr(kStart.size(), path.size() - kStart.size() - kEnd.size()).find('/') ==
             std::string_view::npos;
}

bool is_filtered(const Call& c) {
  return c.request.method == "GET" && (is_nested(c) || common::last_value(c.params, "entity") != nullptr);
}

bool is_proxied(const Call& c) {
  return c.request.header("X-Forwarded-Proto") || c.request.header("X-Forwarded-Host") ||
         c.request.header("Forwarded");
}

Position filtered_requests() {
  return {"on filtered pages (?entity= and the nested route)", Visibility::Quick, is_filtered};
}

Position entity_query() {
  return {"on ?entity= pages (not the nested route)", Visibility::Quick, [](const Call& c) {
            return c.request.method == "GET" && !is_nested(c) &&
                   common::last_value(c.params, "entity") != nullptr;
          }};
}

Position nested_route() {
  return {"on the nested route", Visibility::Quick,
          [](const Call& c) { return c.request.method == "GET" && is_nested(c); }};
}

Position proxied_requests() {
  return {"on requests with a proxy's headers", Visibility::Quick,
          [](const Call& c) { return c.request.method == "GET" && is_proxied(c); }};
}

Position compression_asks() {
  return {"on requests offering gzip or br", Visibility::Quick, [](const Call& c) {
            const std::string offered = c.request.header("Accept-Encoding").value_or("");
            return c.request.method == "GET" &&
                   (offered.find("gzip") != std::string::npos || offered.find("br") != std::string::npos);
          }};
}

Position other_host_requests() {
  return {"on requests naming another Host", Visibility::Quick, [](const Call& c) {
            return c.request.method == "GET" && c.request.header("Host").value_or(
                                                    c.request.server_authority) != c.request.server_authority;
          }};
}

namespace {

Position pick(common::Pcg32& rng, std::vector<Position> choices, std::optional<Position> deep) {
  if (deep) choices.push_back(std::move(*deep));
  return choices[rng.below(static_cast<std::uint32_t>(choices.size()))];
}

}  // namespace

Position page_with_next(const World& w, common::Pcg32& rng) {
  return pick(rng, {first_page(), second_page(), every_page()}, deep_page(w, rng));
}

Position page_with_previous(const World& w, common::Pcg32& rng) {
  return pick(rng, {second_page(), last_page(w), every_page()}, deep_page(w, rng));
}

Position any_page(const World& w, common::Pcg32& rng) {
  return pick(rng,
              {first_page(), second_page(), last_page(w), every_page(), long_page(), format_json_pages()},
              deep_page(w, rng));
}

}  // namespace entimg::mutants::detail
