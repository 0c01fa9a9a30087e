#!/usr/bin/python3
"""Writes fixtures/datasets/differential.jsonl: ~60 records that exercise every output rule of the endpoint.

Deterministic (seeded PRNG); run with /usr/bin/python3 (needs Django for filepath_to_uri).
Usage: /usr/bin/python3 make_dataset.py [OUTPUT]
"""

import json
import mimetypes
import os
import random
import sys

from django.utils.encoding import filepath_to_uri

SEED = 20240601
IMAGE_BASE = "http://localhost/media/"  # only for completeness: both servers rebuild `image` from `file`
DEFAULT_OUTPUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "fixtures", "datasets",
                              "differential.jsonl")

# Ids ascend with gaps; entities repeat and are not sorted by id.
IDS = [3, 4, 5, 9, 10, 11, 12, 17, 18, 19, 20, 21, 25, 26, 40, 41, 42, 43, 44, 57, 58, 59, 60, 61, 100, 101,
       102, 103, 150, 151, 152, 153, 154, 155, 200, 201, 202, 230, 231, 232, 233, 300, 301, 302, 303, 304, 512,
       513, 514, 515, 516, 517, 1000, 1001, 1002, 1003, 1004, 1005, 4096, 65536, 65537, 2147483647]
ENTITIES = [7, 3, 12, 3, 40, 7, 1, 12, 12, 3, 99, 7, 40, 1, 5, 5, 3, 250, 7, 12]
STORED_NAMES = ["img_0001.jpg", "photo.jpeg", "screenshot.png", "DSC_0042.JPG", "scan.JPEG", "foto_3.jpg",
                "logo.png", "a.jpg"]
ORIGINAL_NAMES = ["IMG_0001.JPG", "photos/2019/summer/IMG_0001.JPG", "Фото 3.JPG", None, "", "scan.jpeg",
                  "C:\\Users\\ivan\\Pictures\\logo.png", "screenshot.png"]

# Per-index overrides: each text oddity appears once, spread over first, middle and last pages.
SPECIAL = {
    0: {"author": "Иван Петров", "default_caption": "Подпись «кавычки»", "subject_location": "12,34"},
    1: {"stored": "Фото 3.JPG", "original_filename": "Фото 3.JPG", "name": "Фото 3"},
    2: {"author": 'He said "hi" \\ and \\\\ back\\slash', "alt": "quote \" inside"},
    5: {"description": "line one\nline two\r\nline three", "default_caption": "tab\there"},
    7: {"author": "ctl\u0001char and DEL\u007f", "alt": "bell\u0007 bs\b ff\f esc\u001b"},
    11: {"description": "separators\u2028line\u2029para", "name": "photos/2019/summer/IMG_0001"},
    12: {"author": "emoji 📷🇷🇺 and 😀", "alt": "nbsp\u00a0bom\ufeffzwj\u200d"},
    13: {"stored": "q?a#b%c&d=e+f;g,h@i$j~k!l*m(n)o'p [x] {y}.png", "original_filename": "odd name.png"},
    20: {"stored": "📷 снимок.png", "author": "</script><b>&amp;", "subject_location": "0,0"},
    23: {"description": "nul\u0000inside", "default_caption": "/slashes/ and \\/"},
    24: {"original_filename": None, "author": None, "name": None, "description": None},
    30: {"file_size": 0},
    31: {"file_size": 5368709120},
    32: {"file_size": 9007199254740993, "default_caption": "2^53 + 1 bytes"},
    35: {"same_file_as": 34},  # one filer image attached to two entities
    40: {"subject_location": "1024,768", "alt": "Альтернативный текст"},
    48: {"author": "last page: \"q\" \\ \n \t \u0001 \u2028 😀"},
    60: {"description": "Описание\nв две строки", "subject_location": "12,34"},
    61: {"author": "max id", "name": "photos/Фото 3"},
}


def uuid4_text(rng):
    value = rng.getrandbits(128)
    value = (value & ~(0xF << 76)) | (0x4 << 76)  # version 4
    value = (value & ~(0x3 << 62)) | (0x2 << 62)  # RFC 4122 variant
    text = f"{value:032x}"
    return f"{text[:8]}-{text[8:12]}-{text[12:16]}-{text[16:20]}-{text[20:]}"


def filer_path(rng, stored_name):
    uuid = uuid4_text(rng)
    return f"filer_public/{uuid[0:2]}/{uuid[2:4]}/{uuid}/{stored_name}"


def build_records():
    rng = random.Random(SEED)
    records = []
    for index, record_id in enumerate(IDS):
        special = SPECIAL.get(index, {})
        stored = special.get("stored", STORED_NAMES[index % len(STORED_NAMES)])
        if "same_file_as" in special:
            file = records[special["same_file_as"]]["file"]
        else:
            file = filer_path(rng, stored)
        record = {
            "id": record_id,
            "image": IMAGE_BASE + filepath_to_uri(file),
            "file": file,
            "original_filename": ORIGINAL_NAMES[index % len(ORIGINAL_NAMES)],
            "file_size": 1000 + rng.randrange(0, 5_000_000),
            "author": "",
            "name": "",
            "default_caption": "",
            "alt": "",
            "description": "",
            "subject_location": "",
            "mime_type": mimetypes.guess_type(file)[0] or "",
            "order": 0,
            "key": None,
            "entity": ENTITIES[index % len(ENTITIES)],
        }
        record.update({k: v for k, v in special.items() if k in record})
        # The dataset holds the rendered values: unset text fields render as "".
        for field in ("author", "name", "default_caption", "alt", "description", "subject_location"):
            record[field] = record[field] or ""
        records.append(record)
    return records


def main():
    output = sys.argv[1] if len(sys.argv) > 1 else DEFAULT_OUTPUT
    with open(output, "w", encoding="utf-8", newline="\n") as out:
        for record in build_records():
            out.write(json.dumps(record, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
