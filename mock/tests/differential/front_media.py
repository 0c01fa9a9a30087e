"""The DRF stand-in's MEDIA_URL, served the way a deployment's front server (nginx) serves MEDIA_ROOT.

A deployment's Django never serves /media/: nginx (or a CDN) sends the files django-filer stored. So the
stand-in writes a picture for each record into its MEDIA_ROOT at the record's `file` (Pillow, which
django-filer itself uses for images: a small picture in the format the record's mime_type names), and a WSGI
layer in front of Django answers GET and HEAD under /media/ as nginx's static module does: the file with
the type of its extension (Python's mimetypes, as the records' mime_type), Content-Length, Last-Modified,
an ETag, Accept-Ranges and one byte range (206); a path with no file goes on to Django (its 404 page, as
behind `try_files $uri @django`); uploads land in the same folder and are served alike. Every other path goes
to Django.
"""

import email.utils
import io
import mimetypes
import os
import posixpath
import re

# Pillow's format for each image type a record may name; SVG is written as text.
FORMATS = {"image/jpeg": "JPEG", "image/png": "PNG", "image/gif": "GIF", "image/webp": "WEBP",
           "image/bmp": "BMP", "image/x-ms-bmp": "BMP", "image/tiff": "TIFF", "image/vnd.microsoft.icon": "ICO",
           "image/x-icon": "ICO"}


def picture_bytes(mime_type, record_id):
    """A small picture of the type, its colour from the record's id; None for a type Pillow cannot write."""
    if mime_type == "image/svg+xml":
        return ('<?xml version="1.0" encoding="UTF-8"?>\n<svg xmlns="http://www.w3.org/2000/svg" width="8" '
                f'height="8"><text y="8">{record_id}</text></svg>\n').encode()
    fmt = FORMATS.get(mime_type)
    if fmt is None:
        return None
    from PIL import Image

    colour = ((record_id * 97) % 256, (record_id * 57) % 256, (record_id * 31) % 256)
    out = io.BytesIO()
    Image.new("RGB", (8, 8), colour).save(out, format=fmt)
    return out.getvalue()


def write_pictures(media_root, records):
    """Writes each record's picture at MEDIA_ROOT/<file>; records is (id, file, mime_type) triples."""
    root = os.path.realpath(media_root)
    for record_id, name, mime_type in records:
        path = os.path.realpath(os.path.join(root, name))
        data = picture_bytes(mime_type, record_id)
        if data is None or not path.startswith(root + os.sep):
            continue
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as out:
            out.write(data)


def _answer(start_response, status, headers, body=b""):
    start_response(status, headers + [("Content-Length", str(len(body)))])
    return [body]


def _byte_range(header, size):
    """(first, last) of a single 'bytes=a-b' range within size; None when absent or unsatisfiable."""
    match = re.fullmatch(r"bytes=(\d*)-(\d*)", (header or "").strip())
    if not match or match.group(1) == match.group(2) == "":
        return None
    if match.group(1) == "":
        first, last = max(size - int(match.group(2)), 0), size - 1
    else:
        first = int(match.group(1))
        last = min(int(match.group(2)), size - 1) if match.group(2) else size - 1
    return (first, last) if first <= last and first < size else None


def with_media(app, media_root, media_url="/media/"):
    """The WSGI app with MEDIA_URL served from media_root in front of it."""
    root = os.path.realpath(media_root)

    def front(environ, start_response):
        path = environ.get("PATH_INFO", "")
        if not path.startswith(media_url):
            return app(environ, start_response)
        # PATH_INFO is the path percent-decoded and read as latin-1 (PEP 3333): back to the file's UTF-8 name.
        name = posixpath.normpath(path[len(media_url):].encode("latin-1").decode("utf-8", "replace"))
        full = os.path.realpath(os.path.join(root, name))
        # No such file: Django answers, as behind nginx's try_files $uri @django (its 404 page, which the
        # differential compares with the mock's).
        if not full.startswith(root + os.sep) or not os.path.isfile(full):
            return app(environ, start_response)
        if environ.get("REQUEST_METHOD", "GET") not in ("GET", "HEAD"):
            return _answer(start_response, "405 Not Allowed", [("Content-Type", "text/html"), ("Allow", "GET, HEAD")])
        with open(full, "rb") as f:
            data = f.read()
        stat = os.stat(full)
        kind = mimetypes.guess_type(full)[0] or "application/octet-stream"
        headers = [("Content-Type", kind), ("Last-Modified", email.utils.formatdate(stat.st_mtime, usegmt=True)),
                   ("ETag", '"%x-%x"' % (int(stat.st_mtime), stat.st_size)), ("Accept-Ranges", "bytes")]
        wanted = _byte_range(environ.get("HTTP_RANGE"), len(data))
        if wanted:
            first, last = wanted
            headers.append(("Content-Range", f"bytes {first}-{last}/{len(data)}"))
            return _answer(start_response, "206 Partial Content", headers, data[first:last + 1])
        return _answer(start_response, "200 OK", headers, data)

    return front


def record_files():
    """(id, file, mime_type) of every record the stand-in lists."""
    from edwsim.models import EntityImage

    out = []
    for image in EntityImage.objects.select_related("image"):
        name = image.image.file.name if image.image.file else ""
        out.append((image.id, name, mimetypes.guess_type(name)[0] or ""))
    return out
