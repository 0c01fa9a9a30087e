#include "entimg/mock/security_headers.hpp"

#include <string_view>

#include "entimg/common/ascii.hpp"

namespace entimg::mock {

namespace {

// response.headers.setdefault(name, value), as both middleware set them.
void set_default(HttpResponse& response, std::string_view name, std::string_view value) {
  for (const auto& header : response.headers)
    if (common::iequals_ascii(header.first, name)) return;
  response.headers.emplace_back(std::string(name), std::string(value));
}

}  // namespace

void add_security_headers(HttpResponse& response) {
  if (response.passed == DjangoMiddleware::none) return;
  // XFrameOptionsMiddleware is last in MIDDLEWARE, so what a middleware above it answers never meets it.
  if (response.passed == DjangoMiddleware::all) set_default(response, "X-Frame-Options", "DENY");
  set_default(response, "X-Content-Type-Options", "nosniff");  // SECURE_CONTENT_TYPE_NOSNIFF
  set_default(response, "Referrer-Policy", "same-origin");     // SECURE_REFERRER_POLICY
}

}  // namespace entimg::mock
