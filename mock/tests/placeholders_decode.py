#!/usr/bin/python3
"""The mock's placeholder pictures, decoded by a library that did not make them (Debian's Pillow), in both sizes:
the small placeholders and, with --sized-pictures, the pictures of their records' file_size. Each record of
fixtures/datasets/pictures.jsonl (every type the mock draws: PNG, JPEG, GIF, BMP, ICO, TIFF, WebP, SVG, and AVIF,
which gets a PNG) gets a picture Pillow opens as that format, 192x128, and the SVG parses as an <svg> document;
a sized picture is exactly its file_size bytes (below the placeholder's size, the placeholder; WebP, whose RIFF
chunks are even, a byte short of an odd size). Pillow reads every pixel (`load()`), so a truncated or malformed
body fails here even where its first bytes look right.

Usage: placeholders_decode.py --mock PATH --dataset FILE. Exit 0 when every picture decodes, 1 naming those that
do not.
"""

import argparse
import io
import json
import subprocess
import sys
import urllib.request
import xml.etree.ElementTree as ElementTree

from PIL import Image

# mime_type: (Pillow's format name (None: not a raster format Pillow reads), the type the mock labels it with)
KINDS = {"image/png": ("PNG", "image/png"), "image/jpeg": ("JPEG", "image/jpeg"), "image/gif": ("GIF", "image/gif"),
         "image/bmp": ("BMP", "image/bmp"), "image/vnd.microsoft.icon": ("ICO", "image/vnd.microsoft.icon"),
         "image/tiff": ("TIFF", "image/tiff"), "image/webp": ("WEBP", "image/webp"),
         "image/svg+xml": (None, "image/svg+xml"), "image/avif": ("PNG", "image/png")}


def problem_with(record, body, got_type, sized, small_size):
    pillow_format, labelled = KINDS[record["mime_type"]]
    if got_type != labelled:
        return "Content-Type %s" % got_type
    if sized:
        want = record["file_size"] if record["file_size"] > small_size else small_size
        if labelled == "image/webp" and want > small_size:
            want -= want % 2
        if len(body) != want:
            return "%d bytes, not %d (file_size %d)" % (len(body), want, record["file_size"])
    if pillow_format is None:
        root = ElementTree.fromstring(body)
        return "" if root.tag.endswith("svg") else "an XML document of <%s>" % root.tag
    try:
        picture = Image.open(io.BytesIO(body))
        picture.load()
        if picture.format != pillow_format or picture.size != (192, 128):
            return "Pillow read a %s of %s" % (picture.format, picture.size)
    except Exception as error:  # Pillow's errors name the format's fault
        return "Pillow could not decode it: %s" % error
    return ""


def pictures(mock, dataset, flags):
    """[(record, body, Content-Type)] of every record's picture, from a mock started with `flags`."""
    process = subprocess.Popen([mock, "--host", "127.0.0.1", "--port", "0", "--quiet", "--dataset", dataset] + flags,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = process.stdout.readline()
        if not line.startswith("listening on "):
            raise RuntimeError("the mock did not start: " + line + process.stderr.read())
        base = line.split()[2]
        page = json.load(urllib.request.urlopen(base + "/edw/api/entities-images/?limit=100", timeout=10))
        out = []
        for record in page["results"]:
            answer = urllib.request.urlopen(record["image"], timeout=30)
            out.append((record, answer.read(), answer.headers.get("Content-Type", "")))
        return out
    finally:
        process.terminate()
        process.wait(timeout=10)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mock", required=True)
    parser.add_argument("--dataset", required=True)
    args = parser.parse_args()
    failed = []
    small = {}
    for mode, flags in (("small", []), ("sized", ["--sized-pictures"])):
        try:
            got = pictures(args.mock, args.dataset, flags)
        except RuntimeError as error:
            print("FAIL: " + str(error))
            return 1
        types = {record["mime_type"] for record, _, _ in got}
        if types != set(KINDS):
            failed.append("%s: types served %s, not every one of %s" % (mode, sorted(types), sorted(KINDS)))
        for record, body, got_type in got:
            if mode == "small":
                small[record["id"]] = len(body)
            problem = problem_with(record, body, got_type, mode == "sized", small.get(record["id"], 0))
            print("%s %s %s %d (%d bytes)%s" % ("FAIL" if problem else "ok  ", mode, record["mime_type"], record["id"],
                                               len(body), ": " + problem if problem else ""))
            if problem:
                failed.append("%s %s %d" % (mode, record["mime_type"], record["id"]))
    if failed:
        print("FAIL: " + ", ".join(failed))
        return 1
    print("every placeholder decodes, in both sizes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
