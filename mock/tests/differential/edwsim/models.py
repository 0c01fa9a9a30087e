"""edw's EntityImage (drf-behaviour.md §1.6) and a stand-in for the django-filer models it points at.

django-filer is not installed here, so `FilerImage` and `Folder` keep only what the endpoint shows or what
edw's upload path (edw backend/edw/rest/serializers/filer_fields.py:35-37) writes: filer 2.2.5's column names,
defaults and upload path (filer/models/filemodels.py:50-140, models/abstract.py:31-60,
utils/generate_filename.py:14-18, settings.py:87-94).
"""

import os
import uuid

from django.conf import settings
from django.core.files.storage import FileSystemStorage
from django.db import models
from django.db.backends.base.operations import BaseDatabaseOperations
from django.db.backends.sqlite3.operations import DatabaseOperations as SQLiteOperations

# A deployment's database (PostgreSQL, MySQL) bounds integer columns, and Django derives the model fields'
# min/max validators from those bounds (so DRF refuses order=32768 and lists min_value/max_value in
# OPTIONS); SQLite bounds nothing. The stand-in takes the common bounds, as the spec's SmallIntegerField
# `order` has them.
SQLiteOperations.integer_field_range = BaseDatabaseOperations.integer_field_range

from .filer_names import get_valid_filename


class Entity(models.Model):
    """Minimal stand-in for edw's BaseEntity: only its integer id is ever shown."""


def filer_public_upload_to(instance, filename):
    """filer's default public UPLOAD_TO: prefixed_factory(randomized, 'filer_public')."""
    uuid_str = str(uuid.uuid4())
    return os.path.join("filer_public", uuid_str[0:2], uuid_str[2:4], uuid_str, get_valid_filename(filename))


class Folder(models.Model):
    """filer's Folder: edw files uploads under "Entities images/<year>/<month name>/<dd>"; never shown."""

    name = models.CharField(max_length=255)
    parent = models.ForeignKey("self", null=True, blank=True, on_delete=models.CASCADE)


class FilerImage(models.Model):
    """filer.Image (File + BaseImage columns). Files live on the default FileSystemStorage (MEDIA_ROOT/MEDIA_URL)."""

    folder = models.ForeignKey(Folder, null=True, blank=True, on_delete=models.CASCADE)
    file = models.FileField(max_length=255, null=True, blank=True, upload_to=filer_public_upload_to,
                            storage=FileSystemStorage())
    _file_size = models.BigIntegerField(null=True, blank=True)
    sha1 = models.CharField(max_length=40, blank=True, default="")
    has_all_mandatory_data = models.BooleanField(default=False, editable=False)
    original_filename = models.CharField(max_length=255, blank=True, null=True)
    name = models.CharField(max_length=255, default="", blank=True)
    description = models.TextField(null=True, blank=True)
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True)
    is_public = models.BooleanField(default=True)
    mime_type = models.CharField(max_length=255, default="application/octet-stream")
    # BaseImage
    _height = models.FloatField(null=True, blank=True)
    _width = models.FloatField(null=True, blank=True)
    author = models.CharField(max_length=255, null=True, blank=True)  # filer Image.author
    default_alt_text = models.CharField(max_length=255, blank=True, null=True)
    default_caption = models.CharField(max_length=255, blank=True, null=True)
    subject_location = models.CharField(max_length=64, blank=True, default="")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # filer's File.file_data_changed (filemodels.py:176-200), run when a new upload is assigned: caches the
        # size in bytes. (Width/height come from PIL, whose errors filer swallows; they are never shown.)
        if self.file and not self.file._committed:
            self._file_size = self.file.size

    @property
    def url(self):
        """filer File.url (filemodels.py:342-350): the storage URL, '' on any error."""
        try:
            return self.file.url
        except Exception:
            return ""

    @property
    def size(self):
        """filer File.size (filemodels.py:380-382)."""
        return self._file_size or 0

    def save(self, *args, **kwargs):
        self.has_all_mandatory_data = bool(self.name)  # BaseImage.save/_check_validity
        super().save(*args, **kwargs)


class EntityImage(models.Model):
    # edw: image = filer.fields.image.FilerImageField(on_delete=CASCADE), an FK to filer's Image.
    image = models.ForeignKey(FilerImage, on_delete=models.CASCADE, verbose_name="Image")
    entity = models.ForeignKey(Entity, on_delete=models.CASCADE, verbose_name="Entity")
    order = models.SmallIntegerField(default=0, blank=False, null=False, db_index=True)
    key = models.IntegerField(verbose_name="Key", blank=True, null=True, db_index=True)  # django-edw-fluent's field

    class Meta:
        ordering = ("order",)  # edw's only ordering: ties are left to the database
        unique_together = (("image", "entity"),)
