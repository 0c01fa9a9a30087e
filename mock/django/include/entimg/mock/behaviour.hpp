#pragma once
// What the mock does around the service, for testing an app, one header a role: latency and faults
// (faults.hpp), the pages a failing deployment answers (failure_pages.hpp), CORS (cors.hpp), Django's
// patch_vary_headers (vary.hpp), the gzip middleware (gzip.hpp) and the request log (request_log.hpp).
// docs/mock.md, "Latency, faults, CORS, log".
#include "entimg/mock/cors.hpp"
#include "entimg/mock/failure_pages.hpp"
#include "entimg/mock/faults.hpp"
#include "entimg/mock/gzip.hpp"
#include "entimg/mock/request_log.hpp"
#include "entimg/mock/vary.hpp"
