#pragma once
// The URLconf declared once (reference §1.1): each route of edw's routers under /edw/api/ is one row, its
// pattern, view, Allow, view name and breadcrumb, which the resolver (service.cpp), the dispatch and the
// views and their browsable page (list_view.cpp) read. Each pattern also has DRF's format-suffix twin.
#include <array>
#include <optional>
#include <string>
#include <string_view>

#include "entimg/mock/http_types.hpp"
#include "entimg/mock/live_dataset.hpp"
#include "view_response.hpp"

namespace entimg::mock::detail {

struct ViewRequest;
struct Route;

/// A DRF view: its answer to a request routed to it (ViewRequest::route says which row).
using View = HttpResponse (*)(LiveDataset& dataset, const ViewRequest& request);

/// DefaultRouter's API root, listing the one route the mock serves.
HttpResponse root_view(LiveDataset& dataset, const ViewRequest& request);
/// The list; a user's POST adds a record to `dataset`.
HttpResponse list_view(LiveDataset& dataset, const ViewRequest& request);
/// One record (reads only; writes are answered 501 for now).
HttpResponse detail_view(LiveDataset& dataset, const ViewRequest& request);

struct Route {
  /// The path under /edw/api/ as the router writes it, `{pk}` and `{entity_pk}` each a segment of
  /// [^/.]+; its twin ends in `.<format>` (format [a-z0-9]+, a slash allowed after) instead of the slash.
  std::string_view pattern;
  View view;
  std::string_view allow;  ///< the view's Allow, on every answer of it
  std::string_view name;   ///< the view's name (OPTIONS, the browsable page's title and breadcrumb)
  std::string_view description = {};
  /// The breadcrumb before the route's own: the root's at /edw/api/, a list's at this path less its last
  /// segment; none for the root.
  const Route* parent = nullptr;
};

inline constexpr Route kRootRoute{.pattern = "",
                                  .view = root_view,
                                  .allow = kRootAllow,
                                  .name = "Api Root",
                                  .description = "The default basic root view for DefaultRouter"};
inline constexpr Route kListRoute{.pattern = "entities-images/",
                                  .view = list_view,
                                  .allow = kListAllow,
                                  .name = "Entity Image List",
                                  .parent = &kRootRoute};
inline constexpr Route kDetailRoute{.pattern = "entities-images/{pk}/",
                                    .view = detail_view,
                                    .allow = kDetailAllow,
                                    .name = "Entity Image Instance",
                                    .parent = &kListRoute};
// drf-nested-routers under edw's NestedSimpleBulkRouter (reference §1.1, §5.5): the same views.
inline constexpr Route kNestedListRoute{.pattern = "entities/{entity_pk}/images/",
                                        .view = list_view,
                                        .allow = kListAllow,
                                        .name = "Entity Image List",
                                        .parent = &kRootRoute};
inline constexpr Route kNestedDetailRoute{.pattern = "entities/{entity_pk}/images/{pk}/",
                                          .view = detail_view,
                                          .allow = kDetailAllow,
                                          .name = "Entity Image Instance",
                                          .parent = &kNestedListRoute};

inline constexpr std::array<const Route*, 5> kRoutes{&kRootRoute, &kListRoute, &kDetailRoute,
                                                     &kNestedListRoute, &kNestedDetailRoute};

inline constexpr std::string_view kApiPath = "/edw/api/";  ///< where edw includes its routers

/// A path matched to its route, with what the pattern captured.
struct Resolved {
  const Route* route = nullptr;
  std::string format_suffix;             ///< the twin's format, else empty
  std::string pk;                        ///< {pk} as matched
  std::optional<std::string> entity_pk;  ///< {entity_pk} as matched
};

/// The route of a decoded path, as Django's resolver finds it; route null when none matches.
Resolved resolve(std::string_view path);

}  // namespace entimg::mock::detail
