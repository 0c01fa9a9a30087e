"""/edw/api/ with a DefaultRouter: trailing slash, format suffixes, API root (drf-behaviour.md §1.1)."""

from django.urls import include, path
from rest_framework import routers

from .views import EntityImageViewSet

router = routers.DefaultRouter()
router.register(r"entities-images", EntityImageViewSet)

urlpatterns = [
    path("edw/api/", include((router.urls, "edw"), namespace="edw")),
]
