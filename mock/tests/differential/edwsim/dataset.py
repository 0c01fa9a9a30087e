"""Loads a JSON Lines dataset (one record of the 15 output fields per line) into the stand-in tables."""

import json
import random

from .models import Entity, EntityImage, FilerImage


def read_records(path):
    records = []
    with open(path, encoding="utf-8") as lines:
        for number, line in enumerate(lines, 1):
            if line.strip():
                try:
                    records.append(json.loads(line))
                except ValueError as error:
                    raise SystemExit(f"{path}:{number}: not a JSON object: {error}")
    return records


def to_model(record):
    """An unsaved EntityImage whose filer image is saved (each record gets its own FilerImage row)."""
    # `image` is ignored: the serializer rebuilds it from `file` like Django does.
    image = FilerImage.objects.create(
        file=record["file"],
        original_filename=record["original_filename"],
        _file_size=record["file_size"],
        author=record["author"],
        name=record["name"],
        default_caption=record["default_caption"],
        default_alt_text=record["alt"],
        description=record["description"],
        subject_location=record["subject_location"],
    )
    return EntityImage(id=record["id"], image=image, entity_id=record["entity"], order=record["order"],
                       key=record["key"])


def load(path):
    """Inserts the records in a shuffled order, so ties in `order` cannot come back sorted by accident."""
    records = read_records(path)
    Entity.objects.bulk_create([Entity(id=e) for e in sorted({r["entity"] for r in records})])
    shuffled = list(records)
    random.Random(1).shuffle(shuffled)
    for record in shuffled:
        to_model(record).save(force_insert=True)
    return len(records)


def ties_in_ascending_id():
    """Returns a message for each query shape whose rows (all order=0 ties) do not come back by ascending id."""
    problems = []
    querysets = {"all": EntityImage.objects.all()}
    for entity in Entity.objects.values_list("id", flat=True):
        querysets[f"entity={entity}"] = EntityImage.objects.filter(entity=entity)
    for label, queryset in querysets.items():
        ids = list(queryset.values_list("id", flat=True))
        if ids != sorted(ids):
            problems.append(f"{label}: {ids}")
        total = len(ids)
        for offset in range(0, total, 12):
            page = [obj.id for obj in queryset[offset:offset + 12]]
            if page != ids[offset:offset + 12]:
                problems.append(f"{label} [{offset}:{offset + 12}]: {page}")
    return problems
