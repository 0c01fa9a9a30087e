#!/usr/bin/python3
"""The mock's placeholder pictures, decoded by a library that did not make them (Debian's Pillow): a record
of each type the mock draws (PNG, JPEG, GIF, BMP, ICO, TIFF, WebP) gets a picture Pillow opens as that
format, 192x128, and the SVG parses as an <svg> document. Pillow reads every pixel (`load()`), so a
truncated or malformed body fails here even where its first bytes look right.

Usage: placeholders_decode.py --mock PATH. Exit 0 when every picture decodes, 1 naming those that do not.
"""

import argparse
import io
import json
import os
import subprocess
import sys
import tempfile
import urllib.request
import xml.etree.ElementTree as ElementTree

from PIL import Image

# extension, mime_type, Pillow's format name (None: not a raster format Pillow reads)
KINDS = [("png", "image/png", "PNG"), ("jpg", "image/jpeg", "JPEG"), ("gif", "image/gif", "GIF"),
         ("bmp", "image/bmp", "BMP"), ("ico", "image/vnd.microsoft.icon", "ICO"), ("tif", "image/tiff", "TIFF"),
         ("webp", "image/webp", "WEBP"), ("svg", "image/svg+xml", None)]


def dataset_lines():
    lines = []
    for i, (ext, mime, _) in enumerate(KINDS):
        uuid = "%08x-2222-4222-8222-%012x" % (i + 201, i + 201)
        lines.append(json.dumps({
            "id": i + 201, "image": "", "mime_type": mime, "alt": "", "key": None, "name": "", "order": 0,
            "author": "", "entity": 5, "file_size": 10, "description": "", "default_caption": "",
            "subject_location": "", "original_filename": "pic." + ext,
            "file": "filer_public/%s/%s/%s/pic.%s" % (uuid[:2], uuid[2:4], uuid, ext)}))
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mock", required=True)
    args = parser.parse_args()
    failed = []
    with tempfile.TemporaryDirectory(prefix="entimg-placeholders-") as tmp:
        dataset = os.path.join(tmp, "types.jsonl")
        with open(dataset, "w", encoding="utf-8") as out:
            out.write(dataset_lines())
        mock = subprocess.Popen([args.mock, "--host", "127.0.0.1", "--port", "0", "--dataset", dataset],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            line = mock.stdout.readline()
            if not line.startswith("listening on "):
                print("FAIL: the mock did not start: " + line + mock.stderr.read())
                return 1
            base = line.split()[2]
            page = json.load(urllib.request.urlopen(base + "/edw/api/entities-images/", timeout=10))
            for record in page["results"]:
                kind = next(k for k in KINDS if k[1] == record["mime_type"])
                answer = urllib.request.urlopen(record["image"], timeout=10)
                body = answer.read()
                got_type = answer.headers.get("Content-Type", "")
                problem = ""
                if got_type != kind[1]:
                    problem = "Content-Type %s" % got_type
                elif kind[2] is None:
                    root = ElementTree.fromstring(body)
                    if not root.tag.endswith("svg"):
                        problem = "an XML document of <%s>" % root.tag
                else:
                    try:
                        picture = Image.open(io.BytesIO(body))
                        picture.load()
                        if picture.format != kind[2] or picture.size != (192, 128):
                            problem = "Pillow read a %s of %s" % (picture.format, picture.size)
                    except Exception as error:  # Pillow's errors name the format's fault
                        problem = "Pillow could not decode it: %s" % error
                print("%s %s (%d bytes)%s" % ("FAIL" if problem else "ok  ", kind[1], len(body),
                                               ": " + problem if problem else ""))
                if problem:
                    failed.append(kind[1])
            if len(page["results"]) != len(KINDS):
                failed.append("%d records listed of %d" % (len(page["results"]), len(KINDS)))
        finally:
            mock.terminate()
            mock.wait(timeout=10)
    if failed:
        print("FAIL: " + ", ".join(failed))
        return 1
    print("every placeholder decodes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
