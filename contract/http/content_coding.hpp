#pragma once
// Content codings (RFC 9110 §8.4): which ones a request's Accept-Encoding accepts, and decoding a body the
// server compressed with one (gzip and deflate with zlib, br with Brotli), bounded so that a small
// compressed body cannot make the suite hold gigabytes.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace entimg::contract::detail {

/// What a decoded body may grow to: the client's default cap on a body as it comes (64 MiB).
inline constexpr std::size_t kMaxDecodedBytes = std::size_t{64} << 20;

/// The coding a Content-Encoding value names, lower-cased ("x-gzip" is "gzip"); "" for none or identity.
std::string coding_of(std::string_view content_encoding);

/// Whether a request with this Accept-Encoding (nullopt: it sent none) accepts the coding: listed, or
/// covered by "*", without q=0. A request without the header is taken to accept only identity, as the
/// servers a deployment runs behind read it (nginx, Django's GZipMiddleware).
bool accepts_coding(std::optional<std::string_view> accept_encoding, std::string_view coding);

struct Decoded {
  std::string text;   ///< the decoded body, when error is empty
  std::string error;  ///< why it could not be decoded: "a gzip stream cut short", …
};

/// Decodes body from `coding` (gzip, deflate or br), at most max_bytes of output.
Decoded decode_body(std::string_view coding, std::string_view body, std::size_t max_bytes = kMaxDecodedBytes);

}  // namespace entimg::contract::detail
