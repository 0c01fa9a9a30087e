"""edw's EntityImageViewSet (drf-behaviour.md §1.2; edw backend/edw/views/related/entity_image.py:26-52)."""

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

    # The nested route /edw/api/entities/<entity_pk>/images/ passes entity_pk (urls.py). request.GET is the
    # mutable copy made above, so setdefault works; QUERY_STRING (and so every link) does not change.
    def list(self, request, entity_pk=None, *args, **kwargs):
        if entity_pk is not None:
            request.GET.setdefault("entity", entity_pk)
        return super().list(request, *args, **kwargs)

    # request.data is a mutable copy for multipart bodies and a dict for JSON, but the parser's own immutable
    # QueryDict for a form-urlencoded body or an empty form body: assigning to that raises AttributeError (500).
    def create(self, request, entity_pk=None, *args, **kwargs):
        if entity_pk is not None and request.data.get("entity", None) is None:
            request.data["entity"] = entity_pk
        return super().create(request, *args, **kwargs)

    def update(self, request, entity_pk=None, *args, **kwargs):
        if entity_pk is not None and request.data.get("entity", None) is None:
            request.data["entity"] = entity_pk
        return super().update(request, *args, **kwargs)
