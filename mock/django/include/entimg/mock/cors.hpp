#pragma once
// CORS for apps on another origin, as django-cors-headers answers (--cors).
#include <optional>
#include <string>
#include <vector>

#include "entimg/mock/http_types.hpp"

namespace entimg::mock {

struct CorsOptions {
  std::vector<std::string> origins;  ///< --cors ORIGIN (repeatable); "*" allows any
  bool enabled() const { return !origins.empty(); }
};

/// CORS as django-cors-headers answers it: a preflight (OPTIONS with Origin and
/// Access-Control-Request-Method) from an allowed origin gets 200 with the Access-Control-Allow-*
/// headers; nullopt for any other request.
std::optional<HttpResponse> cors_preflight(const CorsOptions& cors, const HttpRequest& request);
/// Adds Access-Control-Allow-Origin (and Expose-Headers, Vary: Origin) to an answer for an allowed origin.
void add_cors_headers(const CorsOptions& cors, const HttpRequest& request, HttpResponse& response);

}  // namespace entimg::mock
