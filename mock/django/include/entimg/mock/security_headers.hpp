#pragma once
// The headers Django's default middleware adds to every answer that passes it (startproject's
// SecurityMiddleware and XFrameOptionsMiddleware, with Django 3.2's default settings).
#include "entimg/mock/http_types.hpp"

namespace entimg::mock {

/// X-Frame-Options: DENY (XFrameOptionsMiddleware), X-Content-Type-Options: nosniff and Referrer-Policy:
/// same-origin (SecurityMiddleware), each unless the answer has it, as far as `response.passed` says.
void add_security_headers(HttpResponse& response);

}  // namespace entimg::mock
