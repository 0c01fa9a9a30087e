#!/usr/bin/python3
"""Writes fixtures/datasets/pictures.jsonl: a record of every picture type the mock makes (and one it does not,
AVIF), each at three file sizes: below any placeholder (the placeholder is served as it is), a few hundred kB
and an odd size near 1.2 MB (WebP, whose RIFF chunks are even, is served a byte short). The picture tests read it:
placeholders_decode.py (Pillow), browser/pictures.mjs (Chromium), range_vs_nginx.py, the npm differential's
--pictures. Run it again only to change the fixture.
"""

import json
import os

KINDS = [("png", "image/png"), ("jpg", "image/jpeg"), ("gif", "image/gif"), ("bmp", "image/bmp"),
         ("ico", "image/vnd.microsoft.icon"), ("tif", "image/tiff"), ("webp", "image/webp"),
         ("svg", "image/svg+xml"), ("avif", "image/avif")]
SIZES = [10, 300_001, 1_234_567]


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    out = os.path.join(here, "..", "..", "fixtures", "datasets", "pictures.jsonl")
    lines = []
    for i, (ext, mime) in enumerate(KINDS):
        for j, size in enumerate(SIZES):
            n = 301 + 10 * i + j
            uuid = "%08x-3333-4333-8333-%012x" % (n, n)
            lines.append(json.dumps({
                "id": n, "image": "", "file": "filer_public/%s/%s/%s/pic-%d.%s" % (uuid[:2], uuid[2:4], uuid, n, ext),
                "original_filename": "pic-%d.%s" % (n, ext), "file_size": size, "author": "", "name": "",
                "default_caption": "", "alt": "", "description": "", "subject_location": "", "mime_type": mime,
                "order": 0, "key": None, "entity": 5}))
    with open(out, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
