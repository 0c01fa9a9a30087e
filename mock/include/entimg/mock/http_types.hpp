#pragma once
// The HTTP values the service and its helpers exchange, independent of the HTTP library.
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace entimg::mock {

/// What the service needs of an HTTP request, independent of the HTTP library.
struct HttpRequest {
  std::string method;
  std::string target;  ///< the raw request-target: path and query exactly as received
  std::vector<std::pair<std::string, std::string>> headers;
  std::string server_authority;  ///< "127.0.0.1:8000": Django's SERVER_NAME:PORT, used without a Host header
  std::string body;              ///< the request body as received (the transport caps its size)

  /// The header's value; repeated headers joined with ',' as WSGI servers do. Case-insensitive.
  std::optional<std::string> header(std::string_view name) const;
};

struct HttpResponse {
  int status = 200;
  std::string content_type;
  std::vector<std::pair<std::string, std::string>> headers;  ///< besides Content-Type and Content-Length
  std::string body;  ///< for HEAD too: the transport sends its length and drops it
};

/// The one user DRF's BasicAuthentication accepts (--user NAME:PASSWORD).
struct User {
  std::string name, password;
};

}  // namespace entimg::mock
