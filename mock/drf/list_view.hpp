#pragma once
// What the DRF views (routes.hpp: the root, the list, a record) are handed: the request as Django made it.
// Their answers: negotiation, permissions, the entity filter and the paginated list, with DRF's headers on
// every answer (reference §1.2-1.4, §2, §3).
#include <optional>
#include <string>
#include <string_view>

#include "entimg/common/url.hpp"
#include "entimg/mock/dataset.hpp"
#include "entimg/mock/http_types.hpp"
#include "entimg/mock/live_dataset.hpp"
#include "pagination.hpp"
#include "routes.hpp"

namespace entimg::mock::detail {

struct ViewRequest {
  std::string method;
  std::optional<std::string> accept;
  std::optional<std::string> authorization;
  std::optional<std::string> content_type;
  bool has_body = false;                 ///< Content-Length above 0, or a chunked body
  std::string_view body;                 ///< its bytes
  const User* user = nullptr;            ///< --user, when given
  const Route* route = nullptr;          ///< the row of routes.hpp the path resolved to
  std::string format_suffix;             ///< from /entities-images.<format>, else empty
  std::string pk;                        ///< a detail route's {pk}
  std::optional<std::string> entity_pk;  ///< the nested routes' {entity_pk}
  common::QueryParams params;            ///< the request's parameters, decoded, blank ones included
  std::string origin;                    ///< "scheme://host" of the request
  RequestUrl url;                        ///< what build_absolute_uri() gives, for the links
  std::string path;                      ///< the path as Django's escape_uri_path gives it
  std::string
      request_path;       ///< Django's request.path: decoded, broken UTF-8 re-percent-encoded (breadcrumbs)
  std::string full_path;  ///< request.get_full_path(): the path and, when not empty, "?" and the query
};

}  // namespace entimg::mock::detail
