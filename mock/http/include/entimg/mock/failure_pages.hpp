#pragma once
// The pages a failing deployment answers: Django's 500, nginx's 502, 503 and 413, DRF's throttled 429; and
// nginx's 416 for a range of a file it cannot satisfy.
#include "entimg/mock/http_types.hpp"

namespace entimg::mock {

/// The answer a failing deployment gives for `status` (Django's 500 page, a proxy's 502/503 page with
/// Retry-After on 503, DRF's throttled 429 body with Retry-After; nginx's 413 for a body over the limit, its
/// 416 for an unsatisfiable range).
HttpResponse failure_response(int status);

}  // namespace entimg::mock
