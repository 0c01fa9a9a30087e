#pragma once
// CreateModelMixin.create as edw's view runs it for a user's POST (reference §3.6, §4): DRF's parser for
// the Content-Type, edw's entity from the nested route, the serializer's validation, then a record with the
// next id and django-filer's stored name, answered 201.
#include <optional>

#include "entimg/mock/http_types.hpp"
#include "entimg/mock/live_dataset.hpp"
#include "list_view.hpp"

namespace entimg::mock::detail {

/// The user's POST on the list route (permissions already checked); the record goes into `dataset`.
HttpResponse create(LiveDataset& dataset, const ViewRequest& request, int indent);

/// edw's update() on the nested route reads request.data and sets its entity before DRF's update looks the
/// record up: the failure that comes first (415, a parse error, a 500), or nullopt to go on to get_object().
std::optional<HttpResponse> nested_update_prelude(const ViewRequest& request, int indent);

}  // namespace entimg::mock::detail
