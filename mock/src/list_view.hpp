#pragma once
// The DRF view of /edw/api/entities-images/: negotiation, permissions, the entity filter and the
// paginated list, with DRF's headers on every answer (reference §1.2-1.4, §2, §3).
#include <optional>
#include <string>
#include <string_view>

#include "entimg/common/url.hpp"
#include "entimg/mock/dataset.hpp"
#include "entimg/mock/http_types.hpp"
#include "entimg/mock/live_dataset.hpp"
#include "pagination.hpp"

namespace entimg::mock::detail {

struct ViewRequest {
  std::string method;
  std::optional<std::string> accept;
  std::optional<std::string> authorization;
  std::optional<std::string> content_type;
  bool has_body = false;                 ///< Content-Length above 0, or a chunked body
  std::string_view body;                 ///< its bytes
  const User* user = nullptr;            ///< --user, when given
  std::string format_suffix;             ///< from /entities-images.<format>, else empty
  std::optional<std::string> entity_pk;  ///< the nested route /edw/api/entities/<entity_pk>/images/
  common::QueryParams params;            ///< the request's parameters, decoded, blank ones included
  std::string origin;                    ///< "scheme://host" of the request
  RequestUrl url;                        ///< what build_absolute_uri() gives, for the links
  std::string path;                      ///< the path as Django's escape_uri_path gives it
  std::string
      request_path;       ///< Django's request.path: decoded, broken UTF-8 re-percent-encoded (breadcrumbs)
  std::string full_path;  ///< request.get_full_path(): the path and, when not empty, "?" and the query
};

/// The list route; a user's POST adds a record to `dataset`.
HttpResponse list_view(LiveDataset& dataset, const ViewRequest& request);
/// /edw/api/entities-images/<pk>/: one record (reads only; writes are answered 501 for now).
HttpResponse detail_view(const Dataset& dataset, const ViewRequest& request, std::string_view pk);
/// /edw/api/: DefaultRouter's API root, listing the one route the mock serves.
HttpResponse root_view(const ViewRequest& request);

}  // namespace entimg::mock::detail
