"""edw's EntityImageViewSet (drf-behaviour.md §1.2)."""

from functools import wraps

from django_filters.rest_framework import DjangoFilterBackend
from rest_framework import permissions, viewsets

from .filters import EntityImageFilter
from .models import EntityImage
from .serializers import EntityImageSerializer


def remove_empty_params_from_request(exclude=None):
    """edw.rest.viewsets: drop every key whose (last) value is '' from request.GET; QUERY_STRING is untouched."""
    exclude = exclude or []

    def decorator(func):
        @wraps(func)
        def wrapper(self, request, *args, **kwargs):
            query_params = request.GET.copy()
            for key, value in list(query_params.items()):
                if value == "" and key not in exclude:
                    del query_params[key]
            request.GET = query_params
            return func(self, request, *args, **kwargs)

        return wrapper

    return decorator


class EntityImageViewSet(viewsets.ModelViewSet):
    permission_classes = (permissions.IsAuthenticatedOrReadOnly,)
    queryset = EntityImage.objects.all()
    serializer_class = EntityImageSerializer
    # edw sets filter_class, which django-filter 23.1 ignores; filterset_class is what edw's version honoured.
    filterset_class = EntityImageFilter
    filter_backends = (DjangoFilterBackend,)

    @remove_empty_params_from_request()
    def initialize_request(self, *args, **kwargs):
        return super().initialize_request(*args, **kwargs)
