"""edw's EntityImageSerializer and FilerImageField (drf-behaviour.md §1.6, §3.6) over the stand-in models.

Copied from edw backend/edw/rest/serializers/related/entity_image.py:14-65 and
backend/edw/rest/serializers/filer_fields.py:15-66, with filer's models replaced by edwsim's.
"""

import calendar
import mimetypes

from django.utils import timezone
from rest_framework import fields, serializers

from .models import EntityImage, FilerImage, Folder


class BaseFilerFileField(fields.FileField):
    """edw filer_fields.py:15-37. to_internal_value replaces DRF's FileField check entirely: no `empty`,
    `no_name` or `invalid` errors, and a value that is not an uploaded file (a string) raises AttributeError
    on `data.name` (a 500)."""

    file_model = FilerImage

    def __init__(self, *args, **kwargs):
        self._upload_folder_name = kwargs.pop("upload_folder_name", None)
        super().__init__(*args, **kwargs)

    def get_folder(self, data):
        return Folder.objects.get_or_create(
            name=self._upload_folder_name)[0] if self._upload_folder_name is not None else None

    def get_owner(self, data):
        request = self.context.get("request", None)
        is_authenticated = (request.user.is_authenticated() if callable(request.user.is_authenticated)
                            else request.user.is_authenticated)
        return request.user if request is not None and is_authenticated else None

    def get_original_filename(self, data):
        return data.name

    def to_internal_value(self, data):
        # Runs while the fields are validated, so the filer image (and its file) exists even if another field
        # then fails: edw leaves an orphan filer Image behind (drf-behaviour.md §3.6).
        return self.file_model.objects.create(file=data, original_filename=self.get_original_filename(data),
                                              owner=self.get_owner(data), folder=self.get_folder(data))


class FileSorterByDateMixin:
    """edw filer_fields.py:44-58: uploads go to the folder "<root>/<year>/<month name>/<dd>"."""

    def get_or_create_folder(self, parent, name):
        folder = Folder.objects.filter(parent=parent, name=name)
        return folder[0] if folder else Folder.objects.create(parent=parent, name=name)

    def get_folder(self, data):
        root_folder = BaseFilerFileField.get_folder(self, data)
        current_time = timezone.now()
        year_folder = self.get_or_create_folder(root_folder, "{}".format(current_time.year))
        month_folder = self.get_or_create_folder(year_folder, calendar.month_name[current_time.month])
        day_folder = self.get_or_create_folder(month_folder, "{:02d}".format(current_time.day))
        return day_folder


class FilerImageField(FileSorterByDateMixin, BaseFilerFileField):
    file_model = FilerImage


class EntityImageSerializer(serializers.ModelSerializer):
    image = FilerImageField(max_length=None, use_url=True, upload_folder_name="Entities images")
    file = serializers.SerializerMethodField()
    original_filename = serializers.SerializerMethodField()
    file_size = serializers.SerializerMethodField()
    author = serializers.SerializerMethodField()
    name = serializers.SerializerMethodField()
    default_caption = serializers.SerializerMethodField()
    alt = serializers.SerializerMethodField()
    description = serializers.SerializerMethodField()
    subject_location = serializers.SerializerMethodField()
    mime_type = serializers.SerializerMethodField()

    class Meta:
        model = EntityImage
        fields = "__all__"  # id, the declared fields in order, order, key, entity

    def get_file_size(self, instance):
        return instance.image.size

    def get_original_filename(self, instance):
        return instance.image.original_filename  # raw: null stays null

    def get_file(self, instance):
        return str(instance.image.file)

    def get_author(self, instance):
        return "{}".format(instance.image.author) if instance.image.author else ""

    def get_name(self, instance):
        return "{}".format(instance.image.name) if instance.image.name else ""

    def get_default_caption(self, instance):
        return "{}".format(instance.image.default_caption) if instance.image.default_caption else ""

    def get_alt(self, instance):
        return "{}".format(instance.image.default_alt_text) if instance.image.default_alt_text else ""

    def get_description(self, instance):
        return "{}".format(instance.image.description) if instance.image.description else ""

    def get_subject_location(self, instance):
        return "{}".format(instance.image.subject_location) if instance.image.subject_location else ""

    def get_mime_type(self, instance):
        type, encoding = mimetypes.guess_type(str(instance.image.file))
        return "{}".format(type) if type else ""
