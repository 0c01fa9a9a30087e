#pragma once
// Django's django.utils.cache.patch_vary_headers, which CORS and the gzip middleware both call.
#include <string_view>

#include "entimg/mock/http_types.hpp"

namespace entimg::mock {

/// Django's patch_vary_headers: adds `header` to the answer's Vary unless it names it (or '*') already.
void patch_vary_headers(HttpResponse& response, std::string_view header);

}  // namespace entimg::mock
