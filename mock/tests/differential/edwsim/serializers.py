"""edw's EntityImageSerializer (drf-behaviour.md §1.6) over the stand-in model."""

import mimetypes

from rest_framework import serializers

from .models import EntityImage


class EntityImageSerializer(serializers.ModelSerializer):
    # edw declares a FilerImageField, a subclass of DRF's FileField: same to_representation.
    image = serializers.FileField(max_length=None, use_url=True)
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
        # edw uses '__all__', which yields this order; listed here because the stand-in has extra columns.
        fields = (
            "id", "image", "file", "original_filename", "file_size", "author", "name", "default_caption",
            "alt", "description", "subject_location", "mime_type", "order", "key", "entity",
        )

    def get_file(self, instance):
        return str(instance.image)

    def get_original_filename(self, instance):
        return instance.original_filename  # raw: null stays null

    def get_file_size(self, instance):
        return instance.file_size or 0  # filer File.size = _file_size or 0

    def get_author(self, instance):
        return "{}".format(instance.author) if instance.author else ""

    def get_name(self, instance):
        return "{}".format(instance.name) if instance.name else ""

    def get_default_caption(self, instance):
        return "{}".format(instance.default_caption) if instance.default_caption else ""

    def get_alt(self, instance):
        return "{}".format(instance.default_alt_text) if instance.default_alt_text else ""

    def get_description(self, instance):
        return "{}".format(instance.description) if instance.description else ""

    def get_subject_location(self, instance):
        return "{}".format(instance.subject_location) if instance.subject_location else ""

    def get_mime_type(self, instance):
        return mimetypes.guess_type(str(instance.image))[0] or ""
