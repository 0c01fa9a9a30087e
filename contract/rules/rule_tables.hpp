#pragma once
// Each checks file's rows, in report order: a rule's row sits in the file of its function, under it.
#include <span>

#include "entimg/contract/rules.hpp"

namespace entimg::contract::detail {

std::span<const Rule> page_rules();       ///< checks_page.cpp: status, body, schemas, fields, page length
std::span<const Rule> link_rules();       ///< checks_links.cpp: next, previous, their parameters, origins
std::span<const Rule> walk_rules();       ///< checks_walk.cpp: ordering, the walk along next
std::span<const Rule> header_rules();     ///< checks_headers.cpp: headers, HEAD, OPTIONS
std::span<const Rule> parameter_rules();  ///< checks_parameters.cpp: odd limit/offset, format=json
std::span<const Rule> side_rules();  ///< checks_sides.cpp: filters, negotiation, compression, proxy, Host
std::span<const Rule>
client_rules();  ///< checks_client.cpp: pictures, records opened, redirects, filters' input

}  // namespace entimg::contract::detail
