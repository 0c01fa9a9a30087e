#pragma once
// JSON Schema's `format: "uri"` as ajv-formats checks it (ajv's reference for draft-07 formats), so our
// validators fail the same strings ajv fails: an absolute URI of RFC 3986 §3, ASCII only, with three
// liberties ajv-formats takes and we take too: a path may not be empty ("x:" and "x:?q" fail), "scheme:/"
// may be followed by an authority as "scheme://" is, and a dotted-quad's parts may have leading zeros.
#include <string_view>

namespace entimg::common::detail {

/// True when text is a URI as ajv-formats' "uri" format accepts it.
bool is_uri(std::string_view text);

}  // namespace entimg::common::detail
