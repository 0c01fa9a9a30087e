#pragma once
// What the variants share. Each variant starts from the mock's correct answer and changes one thing. Where a
// rule can only be broken alone on a page the walk never visits, the variant targets a page of the
// suite's quick plan by the shape of its query. The walk asks either limit=12&offset=N (following
// next, --concurrency 1) or offset=N (the planned offsets, --concurrency 2 and more), so:
//   "first page"   no parameters, or format=json alone (compared with each other by format_json_same)
//   "page two"     offset=12, or limit=12&offset=12 (the quick plan's second page; the walk's too)
//   "walk page N"  offset=N or limit=12&offset=N
//   "middle page"  format=json&limit=12&offset=N (quick only, fetched twice for refetch_same_ids)
//   "partial page" limit=5 (quick only)
// Every variant is stateless but refetch-differs, so a second run against the same server fails
// the same way.
#include <cstdint>
#include <functional>
#include <optional>
#include <string_view>
#include <vector>

#include "answer_edit.hpp"
#include "variants.hpp"

namespace entimg::broken::detail {

/// No parameters, or format=json alone.
bool is_first_page(const Call& c);
/// The offset of a walk page (offset=N or limit=12&offset=N); nullopt for any other request.
std::optional<std::uint64_t> walk_offset(const Call& c);
bool is_walk_page(const Call& c, std::uint64_t offset);
/// The first page or any walk page.
bool is_any_walk_page(const Call& c);
/// The quick plan's custom-limit page (limit=5&offset=count-3); no other request sends limit=5.
bool is_partial_page(const Call& c);
/// format=json&limit=12&offset=N: quick only, fetched twice.
bool is_middle_page(const Call& c);

/// Replaces the page's records with those at another offset, as many as it had; links are kept.
void serve_window(const Call& c, mock::HttpResponse& response, std::uint64_t offset);
/// A DRF-style error answer {"detail": …} with DRF's Allow and Vary.
mock::HttpResponse json_error(int status, std::string_view detail);
/// A variant applying edit to every 200 JSON page, and to a detail answer's record as to a page of it.
std::function<mock::HttpResponse(const Call&)> every_page(std::function<void(Json&)> edit);
void for_each_record(Json& page, const std::function<void(Json&)>& edit);
/// The answer with each record edited: a list page's records, or the record a detail route answers (an
/// object holding `member`); any other answer as it is.
mock::HttpResponse with_records_edited(mock::HttpResponse r, std::string_view member,
                                       const std::function<void(Json&)>& edit);

/// The broken variants by the rules they break, and the tolerated ones.
std::vector<Variant> page_variants();    ///< status, body, schemas, cross-field rules, page lengths
std::vector<Variant> link_variants();    ///< next, previous, origins
std::vector<Variant> walk_variants();    ///< ordering, the walk
std::vector<Variant> header_variants();  ///< headers, HEAD, OPTIONS, parameter probes
std::vector<Variant> side_variants();  ///< filters, negotiation, compression, proxy, Host (side_variants.cpp)
/// The pictures at the image URLs, both kinds (picture_variants.cpp).
std::vector<Variant> picture_variants();
/// The detail route, the slashless path, revalidation (picture_variants.cpp).
std::vector<Variant> follow_up_variants();
std::vector<Variant> tolerated_variants();
/// A collection written to while the whole run goes on: appends and deletes (tolerated), a count cached
/// under appends (broken). Broken ones first.
std::vector<Variant> live_variants();
std::vector<Variant> side_tolerated_variants();  ///< a proxy, a cache, HTTP/2 names, odd stored names, …

}  // namespace entimg::broken::detail
