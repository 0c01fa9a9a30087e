"""/edw/api/ as edw builds it (edw backend/edw/urls/rest_api.py:23-92; drf-behaviour.md §1.1, §5.5).

- A DefaultRouter: trailing slash, format suffixes, API root. Only `entities-images` is registered here.
- edw's `entity_nested_router = NestedSimpleBulkRouter(router, r'entities', lookup='entity')` (l.42) with
  `register(r'images', EntityImageViewSet, basename='entity-image')` (l.69), included through
  `format_suffix_patterns` (l.90). drf-nested-routers is not installed, so NestedEntityRouter below builds the
  same patterns the way its NestedMixin does (drf-nested-routers rest_framework_nested/routers.py:47-119): the
  parent's lookup regex plus '/' is put after the '^' of every SimpleRouter route. edw's EntityViewSet sets no
  lookup_field/lookup_value_regex, so the parent lookup is `(?P<entity_pk>[^/.]+)`; the trailing slash is the
  parent router's '/'. The result: ^entities/(?P<entity_pk>[^/.]+)/images/$ (list) and
  ^entities/(?P<entity_pk>[^/.]+)/images/(?P<pk>[^/.]+)/$ (detail), each with a \\.(?P<format>[a-z0-9]+)/?$ twin.
  The parent `entities` routes themselves are not served (the stand-in has no EntityViewSet), so the API root
  still lists only entities-images.
"""

from django.urls import include, path, re_path
from rest_framework import routers
from rest_framework.urlpatterns import format_suffix_patterns

from .views import EntityImageViewSet


class NestedEntityRouter(routers.SimpleRouter):
    def __init__(self, parent_prefix, lookup, parent_lookup_value="[^/.]+"):
        super().__init__()
        parent_regex = f"{parent_prefix}/(?P<{lookup}_pk>{parent_lookup_value})/"
        escaped = parent_regex.replace("{", "{{").replace("}", "}}")
        self.routes = [route._replace(url=route.url.replace("^", "^" + escaped)) for route in self.routes]


router = routers.DefaultRouter()
router.register(r"entities-images", EntityImageViewSet)

entity_nested_router = NestedEntityRouter(r"entities", lookup="entity")
entity_nested_router.register(r"images", EntityImageViewSet, basename="entity-image")

edw_patterns = [
    re_path(r"^", include(router.urls)),
    re_path(r"^", include(format_suffix_patterns(entity_nested_router.urls))),
]

urlpatterns = [
    path("edw/api/", include((edw_patterns, "edw"), namespace="edw")),
]
