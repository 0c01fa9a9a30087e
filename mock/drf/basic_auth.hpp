#pragma once
// DRF's BasicAuthentication against the one user of --user (reference §1.4). SessionAuthentication comes
// first in DRF's defaults and sees no session here, so only Basic can authenticate.
#include <optional>
#include <string>
#include <string_view>

#include "entimg/mock/http_types.hpp"

namespace entimg::mock::detail {

struct AuthResult {
  bool authenticated = false;
  std::string failure;  ///< DRF's message when the header is refused (answered 403); empty otherwise
};

/// What DRF makes of an Authorization header: none, or not "Basic …" → anonymous; "Basic" alone, with
/// spaces, badly padded base64 or wrong credentials → the failure DRF raises; the user's → authenticated.
AuthResult basic_authenticate(const std::optional<std::string>& authorization, const User* user);

}  // namespace entimg::mock::detail
