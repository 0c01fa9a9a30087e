#pragma once
// Where a mutation applies: the requests the suite sends, told apart by their shape. The quick plan
// asks (contract/run/runner.cpp): the first page (no parameters, and format=json alone), offset=12,
// a middle page with format=json&limit=12, the last page (offset=last), limit=5 near the end,
// limit=1500, an overflow offset, the limit/offset probes, HEAD and OPTIONS. A full walk adds every
// page, as offset=N (fetched ahead) or limit=12&offset=N (following next). A position is Quick when
// the quick plan sends a request it matches.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "mutants.hpp"

namespace entimg::mutants::detail {

struct Position {
  std::string name;  ///< "on the first page"
  Visibility visibility = Visibility::Quick;
  std::function<bool(const Call&)> matches;
};

/// The offset DRF serves for the request: offset when a whole number, else 0.
std::uint64_t effective_offset(const Call& c);
/// A plain page of the walk: no parameters but offset=N (limit=12 allowed), or none at all for 0.
bool is_walk_page(const Call& c, std::uint64_t offset);

Position first_page();
Position second_page();
Position last_page(const World& w);
/// A page only a full walk visits (neither 0, 12 nor the last), chosen by rng; nullopt when the
/// collection has no such page.
std::optional<Position> deep_page(const World& w, common::Pcg32& rng);
Position every_page();
Position long_page();
Position format_json_pages();
Position limit_probes();
Position nth_request(std::uint64_t n);
Position head_requests();
Position options_requests();

// The quick plan's sides (contract/run/sides.cpp): requests told apart by their headers or route.
/// ?entity=N, or the nested route /edw/api/entities/N/images/.
Position filtered_requests();
/// The nested route alone.
Position nested_route();
/// ?entity= on the collection's route, the nested route aside.
Position entity_query();
/// Requests with X-Forwarded-Proto/-Host or Forwarded.
Position proxied_requests();
/// Requests whose Accept-Encoding offers gzip or br.
Position compression_asks();
/// Requests whose Host is not the server's own address.
Position other_host_requests();

/// Whether the request asks through the nested route.
bool is_nested(const Call& c);
/// Whether it asks ?entity= or through the nested route.
bool is_filtered(const Call& c);
/// Whether it carries a proxy's forwarding headers.
bool is_proxied(const Call& c);

/// Pages that carry a next link in a correct answer, for mutations of next: the first page, the
/// second, a deep one or every page; one of them by rng.
Position page_with_next(const World& w, common::Pcg32& rng);
/// Pages that carry a previous link: the second, the last, a deep one or every page.
Position page_with_previous(const World& w, common::Pcg32& rng);
/// Any GET page position: one of the above by rng.
Position any_page(const World& w, common::Pcg32& rng);

}  // namespace entimg::mutants::detail
