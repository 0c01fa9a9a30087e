#include "entimg/mock/cors.hpp"

#include "entimg/common/ascii.hpp"
#include "entimg/mock/vary.hpp"

namespace entimg::mock {

namespace {

// "*" allows any origin; otherwise the Origin must be one of the list exactly (scheme, host, port).
std::optional<std::string> allowed_origin(const CorsOptions& cors, const HttpRequest& request) {
  const auto origin = request.header("Origin");
  if (!cors.enabled() || !origin) return std::nullopt;
  for (const auto& o : cors.origins)
    if (o == "*" || o == *origin) return *origin;
  return std::nullopt;
}

bool allows_any(const CorsOptions& cors) {
  for (const auto& o : cors.origins)
    if (o == "*") return true;
  return false;
}

void allow_origin(const CorsOptions& cors, const std::string& origin, HttpResponse& response) {
  // With any origin allowed the answer says "*", which browsers refuse for requests with credentials;
  // named origins are echoed with credentials allowed, so an app can send Authorization.
  if (allows_any(cors)) {
    response.headers.emplace_back("Access-Control-Allow-Origin", "*");
  } else {
    response.headers.emplace_back("Access-Control-Allow-Origin", origin);
    response.headers.emplace_back("Access-Control-Allow-Credentials", "true");
  }
  patch_vary_headers(response, "Origin");
}

}  // namespace

std::optional<HttpResponse> cors_preflight(const CorsOptions& cors, const HttpRequest& request) {
  if (!cors.enabled() || !common::iequals_ascii(request.method, "OPTIONS") || !request.header("Origin") ||
      !request.header("Access-Control-Request-Method"))
    return std::nullopt;
  HttpResponse r;
  r.status = 200;
  r.content_type = "text/html; charset=utf-8";
  r.passed = DjangoMiddleware::security_only;  // CorsMiddleware, above XFrameOptionsMiddleware, answers it
  if (const auto origin = allowed_origin(cors, request)) {
    allow_origin(cors, *origin, r);
    r.headers.emplace_back("Access-Control-Allow-Headers",
                           "accept, accept-encoding, authorization, content-type, dnt, origin, user-agent, "
                           "x-csrftoken, x-requested-with, x-mock-latency, x-mock-fail, x-mock-drop, "
                           "x-mock-slow-body");
    r.headers.emplace_back("Access-Control-Allow-Methods", "DELETE, GET, OPTIONS, PATCH, POST, PUT");
    r.headers.emplace_back("Access-Control-Max-Age", "86400");
  }
  return r;
}

void add_cors_headers(const CorsOptions& cors, const HttpRequest& request, HttpResponse& response) {
  const auto origin = allowed_origin(cors, request);
  if (!origin) return;
  allow_origin(cors, *origin, response);
  response.headers.emplace_back("Access-Control-Expose-Headers", "Allow, Retry-After, Vary");
}

}  // namespace entimg::mock
