#pragma once
// Secrets the suite sends (--header-from-env values) masked wherever an answer carries them: a server
// that echoes its request (a Django DEBUG page, a link that keeps every parameter) must not put a
// credential in a console, a report or a snapshot.
#include <string>
#include <vector>

#include "entimg/contract/http.hpp"

namespace entimg::contract::detail {

class SecretMask {
 public:
  /// Each secret, and its credential after the auth scheme ("Bearer X" → X) when that is 8 bytes or
  /// more, in the spellings an echo uses: as is, URL-encoded (quote_plus and %20), JSON-escaped and
  /// HTML-escaped.
  explicit SecretMask(const std::vector<std::string>& secrets);
  /// Every spelling replaced by as many '*' (lengths kept, so Content-Length and JSON stay valid) in the
  /// body, the header names and values, the URL, the error and the values of the headers the request sent.
  void apply(HttpExchange& exchange) const;
  /// The same, in one text.
  void apply(std::string& text) const;

 private:
  std::vector<std::string> forms_;  // longest first
};

}  // namespace entimg::contract::detail
