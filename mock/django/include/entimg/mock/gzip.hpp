#pragma once
// Django's GZipMiddleware (--gzip) and the gzip it writes.
#include <string>
#include <string_view>

#include "deflate.hpp"
#include "entimg/mock/http_types.hpp"

namespace entimg::mock {

/// Whether Accept-Encoding offers gzip: listed (or '*') with a q above 0. Django's GZipMiddleware only
/// looks for the word, so it would compress for "gzip;q=0" too; the mock honours the q.
bool accepts_gzip(std::string_view accept_encoding);
/// gzip_compress(data): Python's gzip.compress, declared with zlib's other roles in deflate.hpp.
/// Django's GZipMiddleware (--gzip): an answer of 200 bytes or more without a Content-Encoding gets
/// "Vary: Accept-Encoding", and its body gzipped when the client accepts gzip and that makes it shorter.
void apply_gzip_middleware(const HttpRequest& request, HttpResponse& response);

}  // namespace entimg::mock
