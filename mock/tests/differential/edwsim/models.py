"""edw's EntityImage (drf-behaviour.md §1.6) with the filer Image's columns folded in as a stand-in."""

from django.core.files.storage import FileSystemStorage
from django.db import models


class Entity(models.Model):
    """Minimal stand-in for edw's BaseEntity: only its integer id is ever shown."""


class EntityImage(models.Model):
    # filer's File.file: a FileField on the default FileSystemStorage, so image.url = MEDIA_URL + filepath_to_uri(name).
    image = models.FileField(max_length=255, storage=FileSystemStorage())
    entity = models.ForeignKey(Entity, on_delete=models.CASCADE)
    order = models.SmallIntegerField(default=0, db_index=True)
    key = models.IntegerField(blank=True, null=True, db_index=True)  # django-edw-fluent's field

    # Raw columns of filer's Image, stored exactly as the dataset gives them.
    original_filename = models.CharField(max_length=255, null=True)
    file_size = models.BigIntegerField(null=True)
    author = models.CharField(max_length=255, null=True)
    name = models.CharField(max_length=255, default="")
    default_caption = models.CharField(max_length=255, null=True)
    default_alt_text = models.CharField(max_length=255, null=True)
    description = models.TextField(null=True)
    subject_location = models.CharField(max_length=64, default="")

    class Meta:
        ordering = ("order",)  # edw's only ordering: ties are left to the database
