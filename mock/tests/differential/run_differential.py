#!/usr/bin/python3
"""Differential test: the C++ mock of GET /edw/api/entities-images/ must answer like real DRF, byte for byte.

Starts the DRF stand-in (serve_drf.py: Django 3.2 + DRF 3.14 + django-filter 23.1, Debian's, so run this with
/usr/bin/python3) and the mock on the same dataset, sends both the same raw HTTP/1.1 requests and compares status,
Content-Type, Allow, Vary, Location and the body bytes (each server's own 127.0.0.1:PORT replaced by {HOST}).
HEAD answers are compared by headers, Content-Length included; the mock must send no body after HEAD. In the
`post` group the random uuid of an uploaded file is masked in `file` and `image` (compare.mask_upload_uuids).

Usage: /usr/bin/python3 run_differential.py --mock BINARY --dataset FILE [--enable GROUP]... [--only GROUP]...
See docs/differential-test.md.
"""

import argparse
import base64
import contextlib
import json
import os
import re
import signal
import sys
import time

sys.dont_write_bytecode = True  # keep the source tree free of __pycache__

from compare import compare, one_sided_headers  # noqa: E402
from rawhttp import MULTIPART_BOUNDARY, build_request, exchange, multipart  # noqa: E402
from servers import Server  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
P = "/edw/api/entities-images/"
NO_SLASH = "/edw/api/entities-images"

# Request groups: (enabled by default, why not). Switch one on for a run with --enable GROUP.
GROUPS = {
    "pages":          (True, ""),
    "limit":          (True, ""),
    "offset":         (True, ""),
    "repeated":       (True, ""),
    "params":         (True, ""),
    "host":           (True, ""),
    "entity":         (True, ""),
    "head":           (True, ""),
    "format":         (True, ""),
    "accept":         (True, ""),
    "browsable-api":  (True, ""),
    "trailing-slash": (True, ""),
    "format-suffix":  (True, ""),
    "options":        (True, ""),
    "unsafe-methods": (True, ""),
    "auth":           (True, ""),
    "paths":          (True, ""),
    "other-routes":   (True, ""),
    "empty-header-values": (True, ""),
    "nested":         (True, ""),
    "deployment":     (True, ""),
    # Uploads change the data: `post` runs after every other group (its rows come last in REQUESTS), so no
    # other group's answers depend on whether it ran.
    "post":           (True, ""),
}

# Left out on purpose: paths starting with "//": Python's http.server collapses the slashes before Django sees
# them, which is the front server's business, not DRF's. (Limits of 2**63 and more are compared: the stand-in's
# database answers LIMIT as MySQL, edw's database, does; edwsim/mysql_like/base.py.)

# The user both servers are started with (--user), and its Basic credentials.
USER = "alice:s3cret"
USER_BASIC = base64.b64encode(USER.encode()).decode()
AUTH = "Authorization: Basic " + USER_BASIC

# The nested route edw registers (rest_api.py:42,69): the list of entity 7's images, and its parent prefix.
E = "/edw/api/entities/"
N = E + "7/images/"

# Upload contents: a 1x1 PNG, and JPEG-like bytes with CR LF, NUL, 0xFF and the start of the boundary inside, so
# that a parser which splits on less than the whole delimiter line cuts them short. Neither server decodes them.
PNG_1X1 = bytes.fromhex("89504e470d0a1a0a0000000d4948445200000001000000010806000000"
                        "1f15c4890000000d49444154789c6360000002000100e221bc330000000049454e44ae426082")
JPEG_BYTES = (b"\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00"
              b"\r\n--" + MULTIPART_BOUNDARY[:14].encode() + b"\r\n\x00\xff\r\n\xff\xd9")


def upload(*parts, auth=True, body_boundary=MULTIPART_BOUNDARY):
    """(header lines, body) of a multipart POST; see rawhttp.multipart for the parts. The Content-Type line always
    names MULTIPART_BOUNDARY; `body_boundary` is the one the body is written with."""
    _, body = multipart(parts, body_boundary)
    content_type, _ = multipart([], MULTIPART_BOUNDARY)
    return ((AUTH,) if auth else ()) + (content_type,), body


def raw_body(content_type, body, auth=True):
    return ((AUTH,) if auth else ()) + ("Content-Type: " + content_type,), body


# POST rows: (group, name, target, (header lines, body)). Expanded into REQUESTS rows at the end of the table.
PHOTO = ("image", "photo.jpg", "image/jpeg", JPEG_BYTES)
VALID_UPLOAD = upload(PHOTO, ("entity", "7"))
TRUNCATED = upload(("entity", "7"), ("image", "cut.jpg", "image/jpeg", JPEG_BYTES))
TRUNCATED = (TRUNCATED[0], TRUNCATED[1][:TRUNCATED[1].index(b"JFIF") + 4])  # ends inside the file's data
WINDOWS_PATH = "C:\\Users\\ivan\\My Pictures\\Logo 2.PNG"  # old browsers send the whole path
FORM = "application/x-www-form-urlencoded"
POSTS = [
    ("post", "anonymous",                        P, upload(PHOTO, ("entity", "7"), auth=False)),
    ("post", "valid .jpg",                       P, VALID_UPLOAD),
    ("post", "My Photo (1).JPEG, order, key",    P, upload(("image", "My Photo (1).JPEG", "image/jpeg", JPEG_BYTES),
                                                           ("entity", "3"), ("order", "3"), ("key", "7"))),
    ("post", "Cyrillic .png, order -2",          P, upload(("image", "Снимок экрана.png", "image/png", PNG_1X1),
                                                           ("entity", "12"), ("order", "-2"))),
    ("post", "Latin-1 name, key 0",              P, upload(("entity", "7"), ("key", "0"),
                                                           ("image", "Crème brûlée.png", "image/png", PNG_1X1))),
    ("post", "Windows path as file name",        P, upload(("image", WINDOWS_PATH, "image/png", PNG_1X1),
                                                           ("entity", "5"))),
    ("post", "empty file",                       P, upload(("image", "empty.jpg", "image/jpeg", b""), ("entity", "7"))),
    ("post", "order 2.0 (int() after .0 cut)",   P, upload(("image", "two.png", "image/png", PNG_1X1),
                                                           ("entity", "40"), ("order", "2.0"))),
    ("post", "order 32768 (above SmallInteger)", P, upload(("image", "big.png", "image/png", PNG_1X1),
                                                           ("entity", "40"), ("order", "32768"))),
    ("post", "order -32769, key 2**31",          P, upload(("image", "big.png", "image/png", PNG_1X1),
                                                           ("entity", "40"), ("order", "-32769"), ("key", "2147483648"))),
    ("post", "order and key at their bounds",    P, upload(("image", "edge.png", "image/png", PNG_1X1), ("entity", "40"),
                                                           ("order", "32767"), ("key", "-2147483648"))),
    ("post", "key beyond 64 bits",               P, upload(("image", "huge.png", "image/png", PNG_1X1),
                                                           ("entity", "40"), ("key", "-99999999999999999999999"))),
    ("post", "blank order and key",              P, upload(("image", "blank.png", "image/png", PNG_1X1),
                                                           ("entity", "1"), ("order", ""), ("key", ""))),
    ("post", "missing image",                    P, upload(("entity", "7"))),
    ("post", "file part without file name",      P, upload(("image", "", "application/octet-stream", b""),
                                                           ("entity", "7"))),
    ("post", "missing entity",                   P, upload(PHOTO)),
    ("post", "only order",                       P, upload(("order", "1"))),
    ("post", "entity abc",                       P, upload(PHOTO, ("entity", "abc"))),
    ("post", "entity 7.0",                       P, upload(PHOTO, ("entity", "7.0"))),
    ("post", "unknown entity",                   P, upload(PHOTO, ("entity", "99999"))),
    ("post", "blank entity",                     P, upload(PHOTO, ("entity", ""))),
    ("post", "order abc",                        P, upload(PHOTO, ("entity", "7"), ("order", "abc"))),
    ("post", "order, key and entity bad",        P, upload(PHOTO, ("entity", "99999"), ("order", "1.5"), ("key", "x"))),
    ("post", "image as a text field",            P, upload(("image", "photo.jpg"), ("entity", "7"))),
    ("post", "multipart without boundary",       P, raw_body("multipart/form-data", VALID_UPLOAD[1])),
    ("post", "boundary not in the body",         P, upload(PHOTO, ("entity", "7"), body_boundary="otherBoundary42")),
    ("post", "truncated multipart body",         P, TRUNCATED),
    ("post", "JSON without image",               P, raw_body("application/json", b'{"entity":7,"order":1}')),
    ("post", "JSON with image as a string",      P, raw_body("application/json", b'{"image":"photo.jpg","entity":7}')),
    ("post", "malformed JSON",                   P, raw_body("application/json", b"{entity:7}")),
    ("post", "text/plain body",                  P, raw_body("text/plain", b"hello")),
    ("post", "form-urlencoded body",             P, raw_body(FORM, b"entity=7&order=1")),
    ("post", "nested: entity from the URL",      N, upload(("image", "IMG_0042.JPEG", "image/jpeg", JPEG_BYTES))),
    ("post", "nested: entity field wins",        N, upload(("image", "nested.png", "image/png", PNG_1X1),
                                                           ("entity", "5"))),
    ("post", "nested: blank entity field",       N, upload(PHOTO, ("entity", ""))),
    ("post", "nested: pk abc",                   E + "abc/images/", upload(PHOTO)),
    ("post", "nested: unknown pk",               E + "999/images/", upload(PHOTO)),
    ("post", "nested: form-urlencoded, no entity", N, raw_body(FORM, b"order=1")),
    ("post", "nested: JSON, no entity",          N, raw_body("application/json", b'{"order":1}')),
    ("post", "nested: anonymous",                N, upload(PHOTO, auth=False)),
]

# What a deployment (gunicorn, MySQL, edw's filter backend) answers where a plain DRF would not: the 400 for an
# unusable host framed without a length, MySQL's refusal of a LIMIT of 2**64 or more, ?entity= on a record's
# routes, Date, Expect: 100-continue, breadcrumbs of a path in non-ASCII digits (docs/differential-test.md).
HUGE = "1" + "0" * 60
DEPLOYMENT = [
    ("Host with a space",            "GET",  "/nope/",                       ("Host: a b",)),
    ("Host with two ports",          "GET",  "/nope/",                       ("Host: example.com:80:80",)),
    ("X-Forwarded-Host [::1",        "GET",  P,                              ("X-Forwarded-Host: [::1",)),
    ("Host with a comma",            "GET",  P + "?limit=2",                 ("Host: example.com,evil.com",)),
    ("HEAD, Host with a comma",      "HEAD", P,                              ("Host: example.com,evil.com",)),
    ("limit 2**64",                  "GET",  P + "?limit=18446744073709551616", ()),
    ("limit 2**64-1",                "GET",  P + "?limit=18446744073709551615&offset=58", ()),
    ("limit 2**63",                  "GET",  P + "?limit=9223372036854775808&offset=60", ()),
    ("limit 1e60",                   "GET",  P + "?limit=" + HUGE,           ()),
    ("limit 1e60, last of two",      "GET",  P + "?limit=5&limit=" + HUGE,   ()),
    ("limit 5 after 1e60",           "GET",  P + "?limit=" + HUGE + "&limit=5", ()),
    ("limit 1e60, offset inside",    "GET",  P + "?offset=30&limit=" + HUGE, ()),
    ("limit 1e60, offset = count",   "GET",  P + "?offset=62&limit=" + HUGE, ()),
    ("limit 1e60, offset past end",  "GET",  P + "?offset=63&limit=" + HUGE, ()),
    ("limit 1e60, no such entity",   "GET",  P + "?entity=99999&limit=" + HUGE, ()),
    ("limit 1e60, entity 7",         "GET",  P + "?entity=7&limit=" + HUGE,  ()),
    ("limit 1e60, nested",           "GET",  E + "7/images/?limit=" + HUGE,  ()),
    ("limit 1e60, browsable",        "GET",  P + "?format=api&limit=" + HUGE, ()),
    ("HEAD limit 1e60",              "HEAD", P + "?limit=" + HUGE,           ()),
    ("detail, entity abc",           "GET",  P + "3/?entity=abc",            ()),
    ("detail, its own entity",       "GET",  P + "3/?entity=7",              ()),
    ("detail, entity 7.0",           "GET",  P + "3/?entity=7.0",            ()),
    ("detail, another entity",       "GET",  P + "3/?entity=12",             ()),
    ("detail, entity above 1e50",    "GET",  P + "3/?entity=1e51",           ()),
    ("detail, blank entity",         "GET",  P + "3/?entity=",               ()),
    ("missing detail, entity abc",   "GET",  P + "99999/?entity=abc",        ()),
    ("nested detail, another entity", "GET", E + "abc/images/4/?entity=7",   ()),
    ("nested detail, its entity",    "GET",  E + "7/images/4/?entity=3",     ()),
    ("HEAD detail, another entity",  "HEAD", P + "3/?entity=12",             ()),
    ("OPTIONS detail, entity abc",   "OPTIONS", P + "3/?entity=abc",         (AUTH,)),
    ("DELETE detail, entity abc",    "DELETE", P + "99999/?entity=abc",      (AUTH,)),
    ("detail page, entity abc",      "GET",  P + "3/?entity=abc&format=api", ()),
    ("Expect on a GET",              "GET",  P + "?limit=1",                 ("Expect: 100-continue",)),
    ("a body without Content-Type",  "POST", P,                              (AUTH,), b"x"),
    ("Expect on a POST",             "POST", P,                              ("Expect: 100-continue", "Content-Type: application/json"), b"{}"),
    ("breadcrumbs of pk in Arabic-Indic digits", "GET", P + "%D9%A3.api",   ()),
    ("breadcrumbs, nested, non-ASCII pks", "GET", E + "%D9%A7/images/%D9%A3/?format=api", ()),
    ("breadcrumbs of pk with a space", "GET", P + "%203/?format=api",        ()),
    # Found by the random test (seed 1 #2375): the browsable page's JSON takes the accepted media type's indent.
    ("browsable page, */*; indent=2", "GET", P + "3.api?format=",            ("Accept: */*; indent=2",)),
    ("browsable page, indent=0",     "GET",  P + "?limit=2",                 ("Accept: text/html; indent=0",)),
    ("browsable page, indent=x",     "GET",  P + "?limit=2",                 ("Accept: text/html; indent=x",)),
]

#  group             name                           method     target (as sent on the wire)                 extra header lines
REQUESTS = [("deployment", name, method, target, headers, *body) for name, method, target, headers, *body in DEPLOYMENT]
REQUESTS += [
    ("pages",          "first page",                  "GET",     P,                                          ()),
    ("pages",          "second page",                 "GET",     P + "?offset=12",                           ()),
    ("pages",          "middle page",                 "GET",     P + "?limit=12&offset=24",                  ()),
    ("pages",          "page before last",            "GET",     P + "?offset=48",                           ()),
    ("pages",          "last page (partial)",         "GET",     P + "?offset=60",                           ()),
    ("pages",          "last page ends at count",     "GET",     P + "?limit=2&offset=60",                   ()),
    ("pages",          "overflow page",               "GET",     P + "?offset=72",                           ()),
    ("pages",          "previous drops offset",       "GET",     P + "?offset=5",                            ()),
    ("pages",          "previous at offset=limit",    "GET",     P + "?offset=12&limit=12",                  ()),
    ("pages",          "unaligned offset",            "GET",     P + "?offset=10",                           ()),
    ("pages",          "limit 1",                     "GET",     P + "?limit=1",                             ()),
    ("pages",          "limit 5 offset 57",           "GET",     P + "?limit=5&offset=57",                   ()),
    ("pages",          "limit count-1",               "GET",     P + "?limit=61",                            ()),
    ("pages",          "limit count",                 "GET",     P + "?limit=62",                            ()),
    ("pages",          "empty query string",          "GET",     P + "?",                                    ()),
    ("limit",          "blank",                       "GET",     P + "?limit=",                              ()),
    ("limit",          "0",                           "GET",     P + "?limit=0",                             ()),
    ("limit",          "-0",                          "GET",     P + "?limit=-0",                            ()),
    ("limit",          "-1",                          "GET",     P + "?limit=-1",                            ()),
    ("limit",          "abc",                         "GET",     P + "?limit=abc",                           ()),
    ("limit",          "1.5",                         "GET",     P + "?limit=1.5",                           ()),
    ("limit",          "1e1",                         "GET",     P + "?limit=1e1",                           ()),
    ("limit",          "0x10",                        "GET",     P + "?limit=0x10",                          ()),
    ("limit",          "+3",                          "GET",     P + "?limit=+3",                            ()),
    ("limit",          "%2B3",                        "GET",     P + "?limit=%2B3",                          ()),
    ("limit",          "%201%20",                     "GET",     P + "?limit=%201%20",                       ()),
    ("limit",          "tab 3",                       "GET",     P + "?limit=%093",                          ()),
    ("limit",          "U+001D 5 (int() refuses)",    "GET",     P + "?limit=%1D5",                          ()),
    ("limit",          "NEL 5 (a Unicode space)",     "GET",     P + "?limit=%C2%855",                       ()),
    ("limit",          "U+001C after 4",              "GET",     P + "?offset=4%1C",                         ()),
    ("limit",          "00003",                       "GET",     P + "?limit=00003",                         ()),
    ("limit",          "1_2",                         "GET",     P + "?limit=1_2",                           ()),
    ("limit",          "1_1",                         "GET",     P + "?limit=1_1",                           ()),
    ("limit",          "3 NUL",                       "GET",     P + "?limit=3%00",                          ()),
    ("limit",          "fullwidth 2",                 "GET",     P + "?limit=%EF%BC%92",                     ()),
    ("limit",          "Arabic-Indic 2",              "GET",     P + "?limit=%D9%A2",                        ()),
    ("limit",          "1000",                        "GET",     P + "?limit=1000",                          ()),
    ("limit",          "2**62",                       "GET",     P + "?limit=4611686018427387904",           ()),
    ("limit",          "2**62 with offset",           "GET",     P + "?limit=4611686018427387904&offset=3",  ()),
    ("offset",         "blank",                       "GET",     P + "?offset=",                             ()),
    ("offset",         "-3",                          "GET",     P + "?offset=-3",                           ()),
    ("offset",         "abc",                         "GET",     P + "?offset=abc",                          ()),
    ("offset",         "1.5",                         "GET",     P + "?offset=1.5",                          ()),
    ("offset",         "+5",                          "GET",     P + "?offset=+5",                           ()),
    ("offset",         "fullwidth 5",                 "GET",     P + "?offset=%EF%BC%95",                    ()),
    ("offset",         "= count",                     "GET",     P + "?offset=62",                           ()),
    ("offset",         "> count",                     "GET",     P + "?offset=100",                          ()),
    ("offset",         "offset + limit = 2**63",      "GET",     P + "?limit=4611686018427387904&offset=4611686018427387904", ()),
    ("offset",         "1e20-1",                      "GET",     P + "?offset=99999999999999999999",         ()),
    ("repeated",       "limit=5&limit=",              "GET",     P + "?limit=5&limit=",                      ()),
    ("repeated",       "limit=&limit=5",              "GET",     P + "?limit=&limit=5",                      ()),
    ("repeated",       "limit=2&limit=3",             "GET",     P + "?limit=2&limit=3",                     ()),
    ("repeated",       "limit split by offset",       "GET",     P + "?limit=2&offset=4&limit=3",            ()),
    ("repeated",       "offset=3&offset=",            "GET",     P + "?offset=3&offset=",                    ()),
    ("repeated",       "offset=&offset=3",            "GET",     P + "?offset=&offset=3",                    ()),
    ("params",         "reference 2.4 example",       "GET",     P + "?zeta=1&alpha=%20x&alpha=y&offset=4&limit=2&k*=a~b*c:d&%D0%AF=1", ()),
    ("params",         "sorted, repeated, non-ASCII", "GET",     P + "?zeta=1&alpha=%20x&alpha=y&k*=a~b*c:d&%D0%AF=1", ()),
    ("params",         "bare key",                    "GET",     P + "?flag",                                ()),
    ("params",         "bare key with limit",         "GET",     P + "?flag&limit=2",                        ()),
    ("params",         "semicolon",                   "GET",     P + "?x=a;y=b",                             ()),
    ("params",         "invalid UTF-8 %ff",           "GET",     P + "?%ff",                                 ()),
    ("params",         "invalid escape %zz",          "GET",     P + "?q=%zz&r=%4",                          ()),
    ("params",         "empty key",                   "GET",     P + "?=v",                                  ()),
    ("params",         "empty pairs",                 "GET",     P + "?a=1&&b=2&",                           ()),
    ("params",         "plus means space",            "GET",     P + "?a+b=c+d&e=%2B",                       ()),
    ("params",         "reserved characters",         "GET",     P + "?q=a%2Fb%2Cc&r=%7E%21%27%28%29%2A",    ()),
    ("params",         "U+2028 and NUL in value",     "GET",     P + "?q=%E2%80%A8&z=%00",                   ()),
    ("params",         "key sort order",              "GET",     P + "?b=1&B=1&_=1&~=1&%41=2&%C3%A9=1",      ()),
    ("params",         "blank extra param",           "GET",     P + "?zeta=&limit=3",                       ()),
    ("host",           "X-Forwarded-Host",            "GET",     P + "?limit=2",                             ("X-Forwarded-Host: example.org",)),
    ("host",           "X-Forwarded-Host with port",  "GET",     P + "?limit=2",                             ("X-Forwarded-Host: example.org:8443", "X-Forwarded-Proto: https")),
    ("host",           "X-Forwarded-Proto https",     "GET",     P + "?limit=2",                             ("X-Forwarded-Proto: https",)),
    ("host",           "X-Forwarded-Proto HTTPS",     "GET",     P + "?limit=2",                             ("X-Forwarded-Proto: HTTPS",)),
    ("host",           "X-Forwarded-Proto https,http", "GET",    P + "?limit=2",                             ("X-Forwarded-Proto: https,http",)),
    ("host",           "Host with port",              "GET",     P + "?limit=2",                             ("Host: example.org:8080",)),
    ("host",           "Host mixed case",             "GET",     P + "?limit=2",                             ("Host: Example.ORG",)),
    ("host",           "Host IPv6",                   "GET",     P + "?limit=2",                             ("Host: [::1]:8080",)),
    ("host",           "X-Forwarded-Host list",       "GET",     P + "?limit=2",                             ("X-Forwarded-Host: a.org,b.org",)),
    ("empty-header-values", "X-Forwarded-Host blank",      "GET",     P + "?limit=2",                             ("X-Forwarded-Host: ",)),
    ("host",           "Host with underscore",        "GET",     P + "?limit=2",                             ("Host: a_b.org",)),
    ("host",           "Host with bad port",          "GET",     P + "?limit=2",                             ("Host: example.org:abc",)),
    ("entity",         "valid",                       "GET",     P + "?entity=7",                            ()),
    ("entity",         "valid, paged",                "GET",     P + "?entity=7&limit=2&offset=2",           ()),
    ("entity",         "unknown",                     "GET",     P + "?entity=999",                          ()),
    ("entity",         "unknown, offset 24",          "GET",     P + "?entity=999&offset=24",                ()),
    ("entity",         "abc",                         "GET",     P + "?entity=abc",                          ()),
    ("entity",         "1.0",                         "GET",     P + "?entity=1.0",                          ()),
    ("entity",         "1.5",                         "GET",     P + "?entity=1.5",                          ()),
    ("entity",         "1e1",                         "GET",     P + "?entity=1e1",                          ()),
    ("entity",         "spaces",                      "GET",     P + "?entity=%203%20",                      ()),
    ("entity",         "-1",                          "GET",     P + "?entity=-1",                           ()),
    ("entity",         "NaN",                         "GET",     P + "?entity=NaN",                          ()),
    ("entity",         "1e51",                        "GET",     P + "?entity=1e51",                         ()),
    ("entity",         "blank",                       "GET",     P + "?entity=",                             ()),
    ("entity",         "repeated",                    "GET",     P + "?entity=3&entity=7",                   ()),
    ("entity",         "repeated, last blank",        "GET",     P + "?entity=3&entity=",                    ()),
    ("entity",         "repeated, first blank",       "GET",     P + "?entity=&entity=3",                    ()),
    ("head",           "first page",                  "HEAD",    P,                                          ()),
    ("head",           "paged",                       "HEAD",    P + "?limit=2&offset=4",                    ()),
    ("head",           "forwarded host",              "HEAD",    P + "?limit=2",                             ("X-Forwarded-Host: example.org",)),
    ("head",           "format=xml 404",              "HEAD",    P + "?format=xml",                          ()),
    ("head",           "entity=abc 400",              "HEAD",    P + "?entity=abc",                          ()),
    ("head",           "Accept xml 406",              "HEAD",    P,                                          ("Accept: application/xml",)),
    ("format",         "json",                        "GET",     P + "?format=json",                         ()),
    ("format",         "json, paged",                 "GET",     P + "?format=json&limit=2&offset=2",        ()),
    ("format",         "xml",                         "GET",     P + "?format=xml",                          ()),
    ("format",         "JSON",                        "GET",     P + "?format=JSON",                         ()),
    ("format",         "blank",                       "GET",     P + "?format=",                             ()),
    ("format",         "space json",                  "GET",     P + "?format=%20json",                      ()),
    ("format",         "json then blank",             "GET",     P + "?format=json&format=",                 ()),
    ("format",         "blank then json",             "GET",     P + "?format=&format=json",                 ()),
    ("format",         "xml then json",               "GET",     P + "?format=xml&format=json",              ()),
    ("format",         "json then xml",               "GET",     P + "?format=json&format=xml",              ()),
    ("format",         "api then json",               "GET",     P + "?format=api&format=json",              ()),
    ("accept",         "application/json",            "GET",     P,                                          ("Accept: application/json",)),
    ("accept",         "APPLICATION/JSON",            "GET",     P,                                          ("Accept: APPLICATION/JSON",)),
    ("accept",         "application/json charset",    "GET",     P,                                          ("Accept: application/json; charset=utf-8",)),
    ("accept",         "*/*",                         "GET",     P,                                          ("Accept: */*",)),
    ("accept",         "application/*",               "GET",     P,                                          ("Accept: application/*",)),
    ("accept",         "application/xml",             "GET",     P,                                          ("Accept: application/xml",)),
    ("accept",         "application/xhtml+xml",       "GET",     P,                                          ("Accept: application/xhtml+xml",)),
    ("accept",         "text/plain",                  "GET",     P,                                          ("Accept: text/plain",)),
    ("empty-header-values", "Accept empty",               "GET",     P,                                          ("Accept: ",)),
    ("accept",         "html then json",              "GET",     P,                                          ("Accept: text/html, application/json",)),
    ("accept",         "q-values ignored",            "GET",     P,                                          ("Accept: application/json;q=0.1, text/html;q=0.9",)),
    ("accept",         "two Accept lines",            "GET",     P,                                          ("Accept: application/xml", "Accept: application/json")),
    ("accept",         "format=json + text/html",     "GET",     P + "?format=json",                         ("Accept: text/html",)),
    ("accept",         "format=api + json",           "GET",     P + "?format=api",                          ("Accept: application/json",)),
    ("accept",         "indent=4",                    "GET",     P + "?limit=2",                             ("Accept: application/json; indent=4",)),
    ("accept",         "indent=0",                    "GET",     P + "?limit=2",                             ("Accept: application/json; indent=0",)),
    ("accept",         "indent=9 clamps to 8",        "GET",     P + "?limit=1",                             ("Accept: application/json; indent=9",)),
    ("accept",         "indent=-1",                   "GET",     P + "?limit=1",                             ("Accept: application/json; indent=-1",)),
    ("accept",         "indent=abc",                  "GET",     P + "?limit=1",                             ("Accept: application/json; indent=abc",)),
    ("accept",         "indent on 404",               "GET",     P + "?format=xml",                          ("Accept: application/json; indent=2",)),
    ("browsable-api",  "format=api",                  "GET",     P + "?format=api",                          ()),
    ("browsable-api",  "format=api, paged",           "GET",     P + "?format=api&limit=2&offset=4",         ()),
    ("browsable-api",  "Accept text/html",            "GET",     P,                                          ("Accept: text/html",)),
    ("browsable-api",  "Accept text/*",               "GET",     P,                                          ("Accept: text/*",)),
    ("browsable-api",  "Accept html;q=0.9, */*",      "GET",     P,                                          ("Accept: text/html;q=0.9, */*",)),
    ("browsable-api",  ".api suffix",                 "GET",     NO_SLASH + ".api?limit=3&offset=3",          ()),
    ("browsable-api",  ".api/ suffix",                "GET",     NO_SLASH + ".api/",                         ()),
    ("browsable-api",  "page controls near the end",  "GET",     P + "?format=api&limit=5&offset=57",        ()),
    ("browsable-api",  "page controls, unaligned",    "GET",     P + "?format=api&limit=4&offset=10",        ()),
    ("browsable-api",  "page controls past the end",  "GET",     P + "?format=api&offset=100",               ()),
    ("browsable-api",  "all on one page",             "GET",     P + "?format=api&limit=100",                ()),
    ("browsable-api",  "query echoed escaped",        "GET",     P + "?format=api&q=%3Cb%3E&x=%22%27&y=a%26b", ()),
    ("browsable-api",  "raw markup in the query",     "GET",     P + "?format=api&q=<i>\"x\"'",              ()),
    ("browsable-api",  "400 as a page",               "GET",     P + "?format=api&entity=abc",               ()),
    ("browsable-api",  "refused credentials",         "GET",     P + "?format=api",                          ("Authorization: Basic YTpi",)),
    ("browsable-api",  "the user's page",             "GET",     P + "?format=api&limit=2",                  (AUTH,)),
    ("browsable-api",  "detail",                      "GET",     P + "3/?format=api",                        ()),
    ("browsable-api",  "detail 404",                  "GET",     P + "99999/?format=api",                    ()),
    ("browsable-api",  "API root",                    "GET",     "/edw/api/?format=api",                     ()),
    ("browsable-api",  "nested route",                "GET",     "/edw/api/entities/7/images/?format=api&limit=3", ()),
    ("browsable-api",  "OPTIONS as a page",           "OPTIONS", P + "?format=api",                          ()),
    ("paths",          "unknown path",                "GET",     "/edw/api/nope/",                           ()),
    ("paths",          "root",                        "GET",     "/",                                        ()),
    ("paths",          "upper case",                  "GET",     "/EDW/api/entities-images/",                ()),
    ("paths",          "percent-encoded hyphen",      "GET",     "/edw/api/entities%2Dimages/?limit=1",      ()),
    ("paths",          "percent-encoded letters",     "GET",     "/edw/api/%65ntities-images/?limit=1",      ()),
    ("paths",          "encoded slash",               "GET",     "/edw/api/entities-images%2F?limit=1",      ()),
    ("paths",          "media path",                  "GET",     "/media/filer_public/x.jpg",                ()),
    ("trailing-slash", "no slash",                    "GET",     NO_SLASH,                                   ()),
    ("trailing-slash", "no slash, query kept",        "GET",     NO_SLASH + "?limit=1",                      ()),
    ("trailing-slash", "no slash, odd query",         "GET",     NO_SLASH + "?zeta=1&%D0%AF=%20x&k*=a:b",    ()),
    ("trailing-slash", "no slash, encoded path",      "GET",     "/edw/api/entities%2Dimages?limit=1",       ()),
    ("trailing-slash", "no slash, HEAD",              "HEAD",    NO_SLASH + "?limit=1",                      ()),
    ("trailing-slash", "no slash, POST",              "POST",    NO_SLASH,                                   ("Content-Length: 0",)),
    ("format-suffix",  ".json",                       "GET",     NO_SLASH + ".json",                         ()),
    ("format-suffix",  ".json paged",                 "GET",     NO_SLASH + ".json?limit=1&offset=1",        ()),
    ("format-suffix",  ".json/",                      "GET",     NO_SLASH + ".json/",                        ()),
    ("format-suffix",  ".json?format=xml",            "GET",     NO_SLASH + ".json?format=xml",              ()),
    ("format-suffix",  ".xml",                        "GET",     NO_SLASH + ".xml",                          ()),
    ("format-suffix",  ".JSON",                       "GET",     NO_SLASH + ".JSON",                         ()),
    ("options",        "OPTIONS",                     "OPTIONS", P,                                          ()),
    ("options",        "OPTIONS with query",          "OPTIONS", P + "?limit=1&format=json",                 ()),
    ("options",        "OPTIONS Accept xml",          "OPTIONS", P,                                          ("Accept: application/xml",)),
    ("unsafe-methods", "POST",                        "POST",    P,                                          ("Content-Length: 0",)),
    ("unsafe-methods", "PUT",                         "PUT",     P,                                          ("Content-Length: 0",)),
    ("unsafe-methods", "PATCH",                       "PATCH",   P,                                          ("Content-Length: 0",)),
    ("unsafe-methods", "DELETE",                      "DELETE",  P,                                          ()),
    ("auth",           "wrong Basic credentials",     "GET",     P + "?limit=1",                             ("Authorization: Basic YTpi",)),
    ("auth",           "Basic without credentials",   "GET",     P + "?limit=1",                             ("Authorization: Basic",)),
    ("auth",           "Bearer is ignored",           "GET",     P + "?limit=1",                             ("Authorization: Bearer abc",)),
    ("auth",           "spaces in Basic",             "GET",     P + "?limit=1",                             ("Authorization: Basic a b",)),
    ("auth",           "Basic, no base64 letters",    "GET",     P + "?limit=1",                             ("Authorization: Basic !!!!",)),
    ("auth",           "Basic, bad padding",          "GET",     P + "?limit=1",                             ("Authorization: Basic YWxpY2U6czNjcmV",)),
    ("auth",           "Basic, name only",            "GET",     P + "?limit=1",                             ("Authorization: Basic YWxpY2U=",)),
    ("auth",           "lower-case scheme",           "GET",     P + "?limit=1",                             ("Authorization: basic " + USER_BASIC,)),
    ("auth",           "the user: GET",               "GET",     P + "?limit=1",                             ("Authorization: Basic " + USER_BASIC,)),
    ("auth",           "the user: OPTIONS",           "OPTIONS", P,                                          ("Authorization: Basic " + USER_BASIC,)),
    ("auth",           "the user: PUT",               "PUT",     P,                                          ("Authorization: Basic " + USER_BASIC, "Content-Length: 0")),
    ("auth",           "the user: PATCH",             "PATCH",   P,                                          ("Authorization: Basic " + USER_BASIC, "Content-Length: 0")),
    ("auth",           "the user: DELETE",            "DELETE",  P,                                          ("Authorization: Basic " + USER_BASIC,)),
    ("auth",           "the user: POST text/plain",   "POST",    P,                                          ("Authorization: Basic " + USER_BASIC, "Content-Type: text/plain", "Content-Length: 0")),
    ("auth",           "wrong credentials on POST",   "POST",    P,                                          ("Authorization: Basic YTpi", "Content-Length: 0")),
    ("other-routes",   "API root",                    "GET",     "/edw/api/",                                ()),
    ("other-routes",   "detail",                      "GET",     P + "3/",                                   ()),
    ("other-routes",   "detail, bad pk",              "GET",     P + "abc/",                                 ()),
    ("other-routes",   "detail, no such id",          "GET",     P + "99999/",                               ()),
    ("other-routes",   "detail, pk as int() reads it", "GET",    P + "%2B3/",                                ()),
    ("other-routes",   "detail .json",                "GET",     P + "3.json",                               ()),
    ("other-routes",   "detail .xml",                 "GET",     P + "3.xml/",                               ()),
    ("other-routes",   "detail, no slash",            "GET",     P + "3?format=json",                        ()),
    ("other-routes",   "detail, indent",              "GET",     P + "5/",                                   ("Accept: application/json; indent=2",)),
    ("other-routes",   "detail HEAD",                 "HEAD",    P + "3/",                                   ()),
    ("other-routes",   "detail OPTIONS",              "OPTIONS", P + "3/",                                   ()),
    ("other-routes",   "detail PUT, anonymous",       "PUT",     P + "3/",                                   ("Content-Length: 0",)),
    ("other-routes",   "detail, wrong credentials",   "GET",     P + "3/",                                   ("Authorization: Basic YTpi",)),
    ("other-routes",   "detail POST, the user",       "POST",    P + "3/",                                   ("Authorization: Basic " + USER_BASIC, "Content-Length: 0")),
    ("other-routes",   "API root ?format=json",       "GET",     "/edw/api/?format=json",                    ()),
    ("other-routes",   "API root ?format=",           "GET",     "/edw/api/?format=",                        ()),
    ("other-routes",   "API root .json",              "GET",     "/edw/api/.json",                           ()),
    ("other-routes",   "API root, no slash",          "GET",     "/edw/api?x=1",                             ()),
    ("other-routes",   "API root OPTIONS",            "OPTIONS", "/edw/api/",                                ()),
    ("other-routes",   "API root POST",               "POST",    "/edw/api/",                                ("Content-Length: 0",)),
    ("other-routes",   "API root, Accept xml",        "GET",     "/edw/api/",                                ("Accept: application/xml",)),
    ("nested",         "first page",                  "GET",     N,                                          ()),
    ("nested",         "paged",                       "GET",     N + "?limit=2&offset=2",                    ()),
    ("nested",         "last page",                   "GET",     N + "?offset=12",                           ()),
    ("nested",         "other entity",                "GET",     E + "3/images/?limit=5",                    ()),
    ("nested",         "odd params kept in links",    "GET",     N + "?zeta=1&limit=2&%D0%AF=%20x",           ()),
    ("nested",         "query entity wins",           "GET",     N + "?entity=3&limit=2",                    ()),
    ("nested",         "blank query entity",          "GET",     N + "?entity=&limit=2",                     ()),
    ("nested",         "query entity abc",            "GET",     N + "?entity=abc",                          ()),
    ("nested",         "unknown entity",              "GET",     E + "999/images/",                          ()),
    ("nested",         "unknown entity, offset 24",   "GET",     E + "999/images/?offset=24",                ()),
    ("nested",         "pk abc",                      "GET",     E + "abc/images/",                          ()),
    ("nested",         "pk Cyrillic",                 "GET",     E + "%D0%AF/images/",                       ()),
    ("nested",         "pk +7",                       "GET",     E + "+7/images/?limit=2",                   ()),
    ("nested",         "pk 1e1",                      "GET",     E + "1e1/images/",                          ()),
    ("nested",         "pk -1",                       "GET",     E + "-1/images/",                           ()),
    ("nested",         "pk space",                    "GET",     E + "%20/images/?limit=2",                  ()),
    ("nested",         "pk 7.5 (no route)",           "GET",     E + "7.5/images/",                          ()),
    ("nested",         "X-Forwarded-Host",            "GET",     N + "?limit=2",                             ("X-Forwarded-Host: example.org", "X-Forwarded-Proto: https")),
    ("nested",         "no slash",                    "GET",     E + "7/images",                             ()),
    ("nested",         "no slash, query kept",        "GET",     E + "7/images?limit=2&x=%20y",              ()),
    ("nested",         "no slash, pk 7.5",            "GET",     E + "7.5/images",                           ()),
    ("nested",         "no slash, POST",              "POST",    E + "7/images",                             (AUTH, "Content-Length: 0")),
    ("nested",         ".json",                       "GET",     E + "7/images.json",                        ()),
    ("nested",         ".json paged",                 "GET",     E + "7/images.json?limit=2&offset=2",       ()),
    ("nested",         ".json/",                      "GET",     E + "7/images.json/",                       ()),
    ("nested",         ".xml",                        "GET",     E + "7/images.xml",                         ()),
    ("nested",         "format=json",                 "GET",     N + "?format=json&limit=1",                 ()),
    ("nested",         "format=xml",                  "GET",     N + "?format=xml",                          ()),
    ("nested",         "Accept xml",                  "GET",     N,                                          ("Accept: application/xml",)),
    ("nested",         "indent=2",                    "GET",     N + "?limit=1",                             ("Accept: application/json; indent=2",)),
    ("nested",         "HEAD",                        "HEAD",    N,                                          ()),
    ("nested",         "HEAD paged",                  "HEAD",    N + "?limit=2&offset=2",                    ()),
    ("nested",         "OPTIONS",                     "OPTIONS", N,                                          ()),
    ("nested",         "OPTIONS, the user",           "OPTIONS", N,                                          (AUTH,)),
    ("nested",         "POST anonymous",              "POST",    N,                                          ("Content-Length: 0",)),
    ("nested",         "PUT anonymous",               "PUT",     N,                                          ("Content-Length: 0",)),
    ("nested",         "PUT, the user",               "PUT",     N,                                          (AUTH, "Content-Length: 0")),
    ("nested",         "DELETE, the user",            "DELETE",  N,                                          (AUTH,)),
    ("nested",         "wrong credentials",           "GET",     N,                                          ("Authorization: Basic YTpi",)),
    ("nested",         "detail",                      "GET",     N + "3/",                                   ()),
    ("nested",         "detail of entity 3's image",  "GET",     N + "4/",                                   ()),
    ("nested",         "detail, no such id",          "GET",     N + "99999/",                               ()),
    # edw's update() reads request.data and sets its entity before DRF's update looks the record up.
    ("nested",         "PUT missing, text body",      "PUT",     N + "99999/",                               (AUTH, "Content-Type: text/plain"), b"x"),
    ("nested",         "PATCH missing, form body",    "PATCH",   N + "99999/",                               (AUTH, "Content-Type: application/x-www-form-urlencoded"), b"a=1"),
    ("nested",         "PUT missing, JSON list",      "PUT",     N + "99999/",                               (AUTH, "Content-Type: application/json"), b"[1]"),
    ("nested",         "PUT missing, bad JSON",       "PUT",     N + "99999/",                               (AUTH, "Content-Type: application/json"), b"{bad"),
    ("nested",         "PATCH missing, JSON object",  "PATCH",   N + "99999/",                               (AUTH, "Content-Type: application/json"), b'{"order": 1}'),
    ("nested",         "PUT missing, no body, form",  "PUT",     N + "99999/",                               (AUTH, "Content-Type: application/x-www-form-urlencoded", "Content-Length: 0")),
    ("nested",         "PUT missing, no body",        "PUT",     N + "99999/",                               (AUTH, "Content-Length: 0")),
    ("nested",         "DELETE missing",              "DELETE",  N + "99999/",                               (AUTH,)),
    ("other-routes",   "PUT missing, text body",      "PUT",     P + "99999/",                               (AUTH, "Content-Type: text/plain"), b"x"),
    ("nested",         "OPTIONS detail, the user",    "OPTIONS", N + "3/",                                   (AUTH,)),
    ("nested",         "OPTIONS missing, the user",   "OPTIONS", N + "99999/",                               (AUTH,)),
    ("nested",         "detail, pk abc in parent",    "GET",     E + "abc/images/3/",                        ()),
    ("nested",         "detail .json",                "GET",     N + "3.json",                               ()),
    ("nested",         "detail, no slash",            "GET",     N + "3",                                    ()),
    ("nested",         "detail OPTIONS",              "OPTIONS", N + "3/",                                   ()),
    ("nested",         "detail POST, the user",       "POST",    N + "3/",                                   (AUTH, "Content-Length: 0")),
]

# The `post` group, last: each upload changes what later requests see, so its rows keep this order and run after
# every other group. The new records get ids from 2147483648 up (SQLite's AUTOINCREMENT after the dataset's
# largest id, 2**31-1), in the order of the 201 answers.
REQUESTS += [(group, name, "POST", target, headers, body) for group, name, target, (headers, body) in POSTS]
REQUESTS += [
    ("post",           "after: page at offset 60",    "GET",     P + "?offset=60",                           ()),
    ("post",           "after: last page",            "GET",     P + "?offset=72",                           ()),
    ("post",           "after: first page",           "GET",     P + "?limit=3",                             ()),
    ("post",           "after: entity 7",             "GET",     P + "?entity=7&offset=12",                  ()),
    ("post",           "after: nested entity 40",     "GET",     E + "40/images/",                           ()),
    ("post",           "after: detail of an upload",  "GET",     P + "2147483648/",                          ()),
]


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mock", help="mock binary (started as BINARY --dataset FILE --port 0 --host 127.0.0.1)")
    parser.add_argument("--dataset", required=True, help="JSON Lines dataset given to both servers")
    parser.add_argument("--enable", action="append", default=[], metavar="GROUP", help="run a group that is off")
    parser.add_argument("--disable", action="append", default=[], metavar="GROUP", help="skip a group that is on")
    parser.add_argument("--only", action="append", default=[], metavar="GROUP", help="run only these groups")
    parser.add_argument("--against-drf", action="store_true",
                        help="self-check: compare DRF with a second DRF instance instead of the mock")
    parser.add_argument("--list", action="store_true", help="print the request table and exit")
    args = parser.parse_args()
    unknown = [g for g in args.enable + args.disable + args.only if g not in GROUPS]
    if unknown:
        parser.error(f"unknown group(s) {unknown}; groups are: {', '.join(GROUPS)}")
    if not args.mock and not args.against_drf and not args.list:
        parser.error("--mock BINARY is required (or --against-drf)")
    return args


def selected_groups(args):
    if args.only:
        return set(args.only)
    return {g for g, (on, _) in GROUPS.items() if (on or g in args.enable) and g not in args.disable}


# Groups whose bodies may hold records created by a POST: only there are upload uuids masked (compare.py).
UPLOAD_GROUPS = {"post"}
DATASET_UUID = re.compile(r"filer_public/[0-9a-f]{2}/[0-9a-f]{2}/([0-9a-f-]{36})/")


def dataset_uuids(path):
    """The uuids in the dataset's `file` paths (as bytes): these are never masked."""
    with open(path, encoding="utf-8") as lines:
        files = [json.loads(line)["file"] for line in lines if line.strip()]
    return frozenset(m.group(1).encode() for f in files for m in [DATASET_UUID.search(f)] if m)


def unpack(case):
    """A REQUESTS row as (group, name, method, target, headers, body); rows without a body have b""."""
    group, name, method, target, headers, *rest = case
    return group, name, method, target, headers, rest[0] if rest else b""


def describe(method, target, headers, body=b""):
    text = f"{method} {target}" + (f"  [{'; '.join(headers)}]" if headers else "")
    return text + (f"  + {len(body)}-byte body" if body else "")


def run_case(case, drf, mock, head_body_must_be_empty, known_uuids, mask_uploads=None):
    """(differences, one-sided header names) for one request; upload uuids are masked in UPLOAD_GROUPS, or
    wherever `mask_uploads` says so when it is given."""
    group, _, method, target, headers, body = unpack(case)
    drf_host, mock_host = f"127.0.0.1:{drf.port}", f"127.0.0.1:{mock.port}"
    send = lambda server, host, verb: exchange(server.port, build_request(verb, target, host, list(headers), body),
                                               verb == "HEAD")
    drf_answer, mock_answer = send(drf, drf_host, method), send(mock, mock_host, method)
    head = None
    if method == "HEAD":
        head = (send(drf, drf_host, "GET"), send(mock, mock_host, "GET"), head_body_must_be_empty)
    masked = known_uuids if (group in UPLOAD_GROUPS if mask_uploads is None else mask_uploads) else None
    return (compare(drf_answer, mock_answer, drf_host, mock_host, head, masked),
            one_sided_headers(drf_answer, mock_answer))


def run_all(cases, drf, mock, head_body_must_be_empty, known_uuids):
    passed = failed = 0
    one_sided = {}  # (side, header) -> names of the requests where only that side sent it
    for case in cases:
        group, name, method, target, headers, body = unpack(case)
        problems, (drf_only, mock_only) = run_case(case, drf, mock, head_body_must_be_empty, known_uuids)
        for side, names in (("DRF", drf_only), (mock.label, mock_only)):
            for header in names:
                one_sided.setdefault((side, header), []).append(f"{group}/{name}")
        label = f"{group}/{name}: {describe(method, target, headers, body)}"
        if problems:
            failed += 1
            print(f"FAIL  {label}")
            for problem in problems:
                print("      " + problem.replace("\n", "\n      "))
        else:
            passed += 1
            print(f"PASS  {label}")
    # Headers outside the compared set are not failures, but a person should know about them.
    for (side, header), where in sorted(one_sided.items()):
        print(f"note: only {side} sends header {header!r} ({len(where)} requests, e.g. {', '.join(where[:3])})")
    return passed, failed


def print_skipped(groups):
    for group, (on, why) in GROUPS.items():
        if group not in groups:
            count = sum(1 for case in REQUESTS if case[0] == group)
            print(f"SKIP  group {group} ({count} requests): {why or 'disabled on the command line'}")


def server_pair(mock_binary, dataset, against_drf=False):
    """The DRF stand-in and the mock (or a second DRF for a self-check), not yet started, both with USER."""
    drf_argv = [sys.executable, "-B", os.path.join(HERE, "serve_drf.py"), "--dataset", dataset, "--port", "0",
                "--user", USER]
    mock_argv = drf_argv if against_drf else [mock_binary, "--dataset", dataset, "--port", "0",
                                              "--host", "127.0.0.1", "--user", USER, "--quiet"]
    return Server("DRF", drf_argv), Server("DRF#2" if against_drf else "mock", mock_argv)


@contextlib.contextmanager
def running(drf, mock):
    """Starts both servers, and always stops them, even on SIGTERM from ctest or Ctrl-C."""
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(128 + signal.SIGTERM))
    try:
        drf.start()
        mock.start()
        yield
    finally:
        for server in (mock, drf):
            code = server.stop()
            if code not in (None, 0, -signal.SIGTERM, 128 + signal.SIGTERM):
                print(f"note: {server.label} exited with {code} after SIGTERM")


def report_exits(drf, mock):
    for server in (drf, mock):
        if not server.alive():
            print(f"{server.label} exited during the run:\n{server.output_tail()}")


def main():
    args = parse_args()
    if args.list:
        for case in REQUESTS:
            group, name, method, target, headers, body = unpack(case)
            print(f"{group:15} {name:30} {describe(method, target, headers, body)}")
        return 0
    groups = selected_groups(args)
    cases = [case for case in REQUESTS if case[0] in groups]
    started = time.monotonic()
    drf, mock = server_pair(args.mock, args.dataset, args.against_drf)
    passed = failed = 0
    try:
        with running(drf, mock):
            print(f"DRF on 127.0.0.1:{drf.port}, {mock.label} on 127.0.0.1:{mock.port}, dataset {args.dataset}")
            print_skipped(groups)
            exchanges_started = time.monotonic()
            passed, failed = run_all(cases, drf, mock, head_body_must_be_empty=not args.against_drf,
                                     known_uuids=dataset_uuids(args.dataset))
            exchanges_seconds = time.monotonic() - exchanges_started
            report_exits(drf, mock)
            print(f"timing: DRF ready in {drf.ready_seconds:.2f} s, {mock.label} ready in {mock.ready_seconds:.2f} s, "
                  f"{len(cases)} requests in {exchanges_seconds:.2f} s, total {time.monotonic() - started:.2f} s")
    except (RuntimeError, OSError) as error:  # a server that cannot start, or a missing binary
        print(f"ERROR {error}")
        failed += 1
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 and passed > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
