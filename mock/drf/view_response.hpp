#pragma once
// What every answer of a DRF view carries (APIView.finalize_response) and the bodies its exception
// handler writes: {"detail": …} for an APIException, {"field": ["message"], …} for a ValidationError.
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "entimg/mock/http_types.hpp"

namespace entimg::mock::detail {

// The methods each route's view handles (reference §1.1): the list, one record, the API root.
inline constexpr std::string_view kListAllow = "GET, POST, HEAD, OPTIONS";
inline constexpr std::string_view kDetailAllow = "GET, PUT, PATCH, DELETE, HEAD, OPTIONS";
inline constexpr std::string_view kRootAllow = "GET, HEAD, OPTIONS";

/// A JSON answer of the view: Allow and Vary: Accept on every one, errors included.
HttpResponse view_response(int status, std::string body, std::string_view allow = kListAllow);

/// {"detail": message} with `status`.
HttpResponse detail_error(int status, std::string_view message, int indent = 0,
                          std::string_view allow = kListAllow);

/// A validation error: {"field": ["message"], ...} with status 400, fields in the order given.
HttpResponse field_errors(const std::vector<std::pair<std::string, std::string>>& errors, int indent,
                          std::string_view allow = kListAllow);

}  // namespace entimg::mock::detail
