"""edw's EntityImageFilter (drf-behaviour.md §1.3) on plain django-filter."""

import django_filters

from .models import EntityImage


class EntityImageFilter(django_filters.FilterSet):
    entity = django_filters.NumberFilter()

    class Meta:
        model = EntityImage
        fields = ["entity"]
