"""Seeded random requests for the differential test: raw HTTP/1.1 requests drawn from weighted families.

`generate(seed, count)` yields `Request`s; the same seed gives the same requests on any machine with the same
Python (random.Random is portable). Each family is one small function in FAMILIES. Uploads (POST with the user's
credentials) are part of the mix: the runner sends every request to both servers in the same order, so both
stay in the same state. See docs/differential-test.md ("The random test").
"""

import random
from typing import NamedTuple
from urllib.parse import quote

from run_differential import AUTH, E, JPEG_BYTES, NO_SLASH, P, PNG_1X1, USER_BASIC, upload


class Request(NamedTuple):
    family: str
    method: str
    target: str  # as sent on the wire
    headers: tuple  # "Name: value" lines; a "Host:" line replaces the default one
    body: bytes = b""


# Values limit/offset/entity meet. Python's int() strips str.isspace() characters (the ASCII ones, U+001C-U+001F,
# NEL, NBSP and the Unicode spaces), takes one sign, any Unicode decimal digits and single underscores between
# digits; QueryDict decodes %XX as UTF-8 (invalid bytes become U+FFFD) and '+' as a space.
INT_SPACES = [" ", "\t", "\n", "\x0b", "\x0c", "\r", "\x1c", "\x1d", "\x1e", "\x1f", "\x85", "\xa0", "\u1680",
              "\u2000", "\u2007", "\u200a", "\u2028", "\u2029", "\u202f", "\u205f", "\u3000"]
NOT_INT_SPACES = ["\x00", "\u200b", "\ufeff", "\x1b", "\u180e"]  # int() refuses these
DIGIT_ZEROS = [0x30, 0x30, 0x30, 0x660, 0x6F0, 0x966, 0xFF10, 0x1D7CE, 0x0E50]  # '0' of a few decimal digit sets
NOT_INT = ["abc", "1.5", "1.0", "1e1", "0x10", "0o7", "0b1", "NaN", "inf", "-inf", "1_", "_1", "1__2", "--1", "+-1",
           "\u00b2", "\u2155", "\u2460", "1,000", "١٫٥", "true", "null", "[]", "1 2", "\ufffd", "%", "%zz", "%4"]
BIG = [2 ** 31 - 1, 2 ** 31, 2 ** 32, 2 ** 53 + 1, 2 ** 62, 2 ** 63 - 1, 2 ** 63, 2 ** 64 - 1, 2 ** 64,
       10 ** 20 - 1, 10 ** 30, 10 ** 60]
# Any limit is sent: the stand-in's database reads LIMIT as MySQL does (2**64 and above: a 500 when DRF queries).
# An entity at or above 2**63 in magnitude is left out: SQLite cannot bind it (OverflowError, a 500) where MySQL
# compares it and finds nothing, as the mock answers.
ENTITY_CEILING = 2 ** 63 - 1


def _digits(rng, number):
    zero = rng.choice(DIGIT_ZEROS)
    text = "".join(chr(zero + int(d)) for d in str(number))
    if rng.random() < 0.15 and len(text) > 1:
        cut = rng.randrange(1, len(text))
        text = text[:cut] + "_" + text[cut:]
    if rng.random() < 0.15:
        text = "0" * rng.randint(1, 4) + text
    return text


def _number(rng, ceiling):
    roll = rng.random()
    if roll < 0.55:
        return rng.randint(0, 80)
    if roll < 0.75:
        return rng.randint(0, 20)
    return min(rng.choice(BIG), ceiling) if ceiling else rng.choice(BIG)


def int_text(rng, ceiling=None):
    """A value as typed (not yet encoded): a number int() reads, or one it refuses."""
    if rng.random() < 0.12:
        return rng.choice(NOT_INT + [""])
    text = _digits(rng, _number(rng, ceiling))
    text = rng.choice(["", "", "", "", "-", "+", "-"]) + text
    for _ in range(2):
        if rng.random() < 0.12:
            text = rng.choice(INT_SPACES) + text
        if rng.random() < 0.12:
            text += rng.choice(INT_SPACES)
    if rng.random() < 0.04:
        text = text + rng.choice(NOT_INT_SPACES) if rng.random() < 0.5 else rng.choice(NOT_INT_SPACES) + text
    return text


def encode(rng, text):
    """Percent-encodes `text` as a client might: fully, or leaving '+', '%' and non-ASCII raw now and then."""
    roll = rng.random()
    if roll < 0.7:
        return quote(text, safe="")
    if roll < 0.85:
        return quote(text, safe="+%") if all(c not in text for c in "&#= ") else quote(text, safe="")
    # Raw UTF-8 in the target (both servers see the bytes), except characters with a byte that Python's
    # http.server takes for white space when it splits the request line (it decodes it as Latin-1): that 400 is
    # the front server's, not Django's (gunicorn splits on spaces only).
    return "".join(c if ord(c) > 0x7f and not RAW_UNSAFE.intersection(c.encode("utf-8")) else quote(c, safe="")
                   for c in text)


RAW_UNSAFE = {0x85, 0xA0}


def query(rng, pairs):
    return "?" + "&".join(k if v is None else f"{k}={v}" for k, v in pairs) if pairs else ""


def paging_pairs(rng, in_range=True):
    pairs = []
    if rng.random() < 0.7:
        pairs.append(("limit", str(rng.randint(1, 70) if in_range else rng.randint(0, 200))))
    if rng.random() < 0.8:
        pairs.append(("offset", str(rng.randint(0, 75) if in_range else rng.randint(0, 300))))
    rng.shuffle(pairs)
    return pairs


# Routes a listing can be reached by: the list, the nested list of an entity, the same without the slash.
def list_path(rng):
    roll = rng.random()
    if roll < 0.7:
        return P
    if roll < 0.9:
        return E + str(rng.choice([7, 3, 12, 40, 1, 5, 99, 250, 999])) + "/images/"
    return rng.choice([NO_SLASH, E + "7/images"])


def extra_headers(rng):
    """Now and then one client header that should change nothing."""
    return (rng.choice(OTHER_HEADERS),) if rng.random() < 0.1 else ()


def pages(rng):
    return Request("pages", "GET", list_path(rng) + query(rng, paging_pairs(rng, rng.random() < 0.6)),
                   extra_headers(rng))


def int_forms(rng):
    pairs = []
    for name in rng.sample(["limit", "offset"], rng.randint(1, 2)):
        value = int_text(rng)
        pairs.append((name, encode(rng, value)))
    if rng.random() < 0.2:  # QueryDict takes the last of repeated values
        name = rng.choice(["limit", "offset"])
        pairs.insert(rng.randrange(len(pairs) + 1), (name, encode(rng, int_text(rng))))
    return Request("int-forms", "GET", P + query(rng, pairs), ())


ODD_KEYS = ["zeta", "alpha", "flag", "q", "%D0%AF", "k*", "a+b", "%41", "_", "~", "B", "b", "%C3%A9", "x%5B%5D",
            "%00", "%ff", "%zz", "a%20b", "%E2%80%A8", "page", "page_size", "cursor", "ordering", "search", "id",
            "LIMIT", "Offset", "limit%00", "offset%20", "format%00", "%3F", "%26", "%3D"]
ODD_VALUES = ["", "1", "%20x", "y", "a~b*c:d", "%zz", "%4", "%", "%ff%fe", "a;b", "a=b", "%3D", "%26", "+", "%2B",
              "<b>", "%22%27", "%E2%80%A8%00", "%F0%9F%98%80", "a/b", "%2F", "{}|\\^`", "'\"", "%25", "%7E%21"]


def query_oddities(rng):
    pairs = paging_pairs(rng) if rng.random() < 0.5 else []
    for _ in range(rng.randint(1, 5)):
        roll = rng.random()
        if roll < 0.15:
            pairs.append((rng.choice(ODD_KEYS), None))  # a bare key
        elif roll < 0.2:
            pairs.append(("", None))  # an empty pair (&&)
        else:
            pairs.append((rng.choice(ODD_KEYS), rng.choice(ODD_VALUES)))
    rng.shuffle(pairs)
    target = P + query(rng, pairs)
    if rng.random() < 0.05:
        target += rng.choice(["&", "&&", ";x=1", "?", "?a=b"])  # '?' in the query: a known difference
    if rng.random() < 0.05:
        target = P + "?"
    return Request("query", "GET", target, extra_headers(rng))


FORMATS = ["json", "api", "xml", "JSON", "", "%20json", "json%20", "yaml", "html", "jsonp", "Json", "api%00"]
SUFFIXES = [".json", ".api", ".xml", ".JSON", ".json/", ".api/", ".txt", ".json.json", "."]


def format_and_suffix(rng):
    pairs = paging_pairs(rng) if rng.random() < 0.4 else []
    for _ in range(rng.choice([0, 1, 1, 1, 2])):
        pairs.insert(rng.randrange(len(pairs) + 1), ("format", rng.choice(FORMATS)))
    roll = rng.random()
    if roll < 0.5:
        base = list_path(rng)
    elif roll < 0.75:
        base = rng.choice([NO_SLASH, E + "7/images", P + "3", P + "2147483647", "/edw/api/"]) + rng.choice(SUFFIXES)
    elif roll < 0.9:
        base = rng.choice([P + "3/", P + "99999/", P + "abc/", "/edw/api/", E + "7/images/4/"])
    else:
        base = rng.choice([P, NO_SLASH + ".json"])
    headers = (rng.choice(ACCEPTS),) if rng.random() < 0.3 else ()
    return Request("format", rng.choice(["GET"] * 9 + ["HEAD"]), base + query(rng, pairs), headers)


ACCEPTS = ["Accept: application/json", "Accept: APPLICATION/JSON", "Accept: application/json; charset=utf-8",
           "Accept: */*", "Accept: application/*", "Accept: application/xml", "Accept: text/html",
           "Accept: text/*", "Accept: text/plain", "Accept: text/html, application/json",
           "Accept: application/json;q=0.1, text/html;q=0.9", "Accept: text/html;q=0.9, */*",
           "Accept: application/json; indent=4", "Accept: application/json; indent=0",
           "Accept: application/json; indent=9", "Accept: application/json; indent=-1",
           "Accept: application/json; indent=abc", "Accept: application/json; indent=2; charset=utf-8",
           "Accept: application/json;indent=3", "Accept: application/xhtml+xml", "Accept: image/png",
           "Accept: application/json, */*;q=0.8", "Accept: */*; indent=2", "Accept: application/vnd.api+json",
           "Accept: ,", "Accept: ;", "Accept: application/json;", "Accept: application", "Accept: a/b/c",
           "Accept: text/html;level=1", "Accept: application/json; indent=1e1", "Accept: application/json; indent= 2"]


def accept(rng):
    headers = [rng.choice(ACCEPTS) for _ in range(rng.choice([1, 1, 1, 1, 2]))]
    if rng.random() < 0.04:
        headers = ["Accept:"]  # an empty value: a known difference
    method = rng.choice(["GET"] * 8 + ["HEAD", "OPTIONS"])
    return Request("accept", method, list_path(rng) + query(rng, paging_pairs(rng)), tuple(headers))


HOSTS = ["example.org", "example.org:8080", "Example.ORG", "[::1]:8080", "[::1]", "a_b.org", "example.org:abc",
         "example.org.", "localhost", "127.0.0.1", "xn--80ak6aa92e.com", "a.b.c.d.e", "example.org:0",
         "example.org:65536", "-bad.org", "a..b", "1.2.3.4:80", "[fe80::1%25eth0]", "example.org:", "EXAMPLE.org:443",
         "exa mple.org", "example.org/path", "user@example.org", "a,b", "\u0430.org", "example.com:80:80", "[::1",
         "example.com,evil.com", "a b"]
PROTOS = ["https", "HTTPS", "http", "https,http", "http,https", "https ", "ftp", "https, http"]


def host_headers(rng):
    headers = []
    if rng.random() < 0.5:
        headers.append("Host: " + rng.choice(HOSTS))
    if rng.random() < 0.5:
        headers.append("X-Forwarded-Host: " + rng.choice(HOSTS + ["a.org,b.org", "a.org, b.org", " x.org"]))
    if rng.random() < 0.4:
        headers.append("X-Forwarded-Proto: " + rng.choice(PROTOS))
    if rng.random() < 0.1:
        headers.append(rng.choice(["X-Forwarded-Port: 8443", "X-Forwarded-For: 10.0.0.1", "Forwarded: host=x.org",
                                   "X-Forwarded-Server: x.org", "X-Real-IP: 10.0.0.2"]))
    if rng.random() < 0.04:
        headers.append(rng.choice(["Host:", "X-Forwarded-Host:"]))  # an empty value: a known difference
    if rng.random() < 0.03:
        headers.append(rng.choice(["Host: exa%6dple.com", "X-Forwarded-Host: a%2eorg"]))  # decoded: known
    if not headers:
        headers.append("X-Forwarded-Host: " + rng.choice(HOSTS))
    method = rng.choice(["GET"] * 8 + ["HEAD", "OPTIONS"])
    target = rng.choice([list_path(rng), P + "3/", "/edw/api/", "/nope/"]) + query(rng, paging_pairs(rng))
    return Request("host", method, target, tuple(headers))


KNOWN_METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE"]
OTHER_METHODS = ["PROPFIND", "LINK", "UNLINK", "PURGE", "FOO", "get", "Get", "M-SEARCH", "REPORT"]
CREDENTIALS = [AUTH, "Authorization: Basic YTpi", "Authorization: Basic", "Authorization: Bearer abc",
               "Authorization: Basic a b", "Authorization: Basic !!!!", "Authorization: Basic YWxpY2U6czNjcmV",
               "Authorization: Basic YWxpY2U=", "Authorization: basic " + USER_BASIC,
               "Authorization: Basic  " + USER_BASIC, "Authorization: Basic " + USER_BASIC + "=",
               "Authorization: Digest x", "Authorization: Basic Og=="]
BODIES = [("Content-Type: application/json", b'{"entity":7}'), ("Content-Type: text/plain", b"hello"),
          ("Content-Type: application/x-www-form-urlencoded", b"entity=7&order=1"), (None, b"x"),
          ("Content-Type: application/json", b"{bad"), ("Content-Type: application/json", b"")]


def methods(rng):
    method = rng.choice(KNOWN_METHODS * 4 + OTHER_METHODS) if rng.random() < 0.97 else "PRI"
    headers = []
    if rng.random() < 0.5:
        headers.append(AUTH if rng.random() < 0.6 else rng.choice(CREDENTIALS))
    body = b""
    if method not in ("GET", "HEAD", "OPTIONS", "TRACE") and rng.random() < 0.5:
        content_type, body = rng.choice(BODIES)
        if content_type:
            headers.append(content_type)
    elif method in ("POST", "PUT", "PATCH") or rng.random() < 0.2:
        headers.append("Content-Length: 0")
    target = rng.choice([P, P, P + "3/", P + "99999/", NO_SLASH, "/edw/api/", E + "7/images/", E + "7/images/3/",
                         "/nope/"])
    if method in ("PUT", "PATCH", "DELETE") and target.endswith("3/"):
        # The mock does not build updates (501); DRF would change or delete record 3 and the two servers would
        # disagree on every later page. A missing record keeps DRF's data as it is (404).
        target = target[:-2] + "99999/"
    # A 201 from a body-less route cannot happen: JSON bodies lack the image, so POSTs here never upload.
    return Request("methods", method, target + query(rng, paging_pairs(rng) if rng.random() < 0.3 else []),
                   tuple(headers), body)


def credentials(rng):
    method = rng.choice(["GET"] * 6 + ["HEAD", "OPTIONS"])
    pairs = paging_pairs(rng) + ([("format", "api")] if rng.random() < 0.1 else [])
    return Request("auth", method, list_path(rng) + query(rng, pairs), (rng.choice(CREDENTIALS),))


ODD_PATHS = ["/", "/edw/", "/edw/api", "/edw/api/", "/EDW/api/entities-images/", "/edw/api/entities%2Dimages/",
             "/edw/api/%65ntities-images/", "/edw/api/entities-images%2F", "/media/filer_public/x.jpg",
             "/edw/api/entities-images/./", "/edw/api/nope/../entities-images/", "/edw/api/entities-images/3/4/",
             "/edw/api/entities-images/3", "/edw/api/entities-images/%2B3/", "/edw/api/entities-images/-3/",
             "/edw/api/entities-images/0/", "/edw/api/entities-images/2147483648/", "/edw/api/entities-images/ 3/",
             "/edw/api/entities-images/%203/", "/edw/api/entities-images/3.5/", "/edw/api/entities-images/%D9%A3/",
             "/edw/api/entities/", "/edw/api/entities/7/", "/edw/api/entities/7/images/3/",
             "/edw/api/entities/7/images", "/edw/api/entities/abc/images/", "/edw/api/entities/%D0%AF/images/",
             "/edw/api/entities/7.5/images/", "/edw/api/entities/+7/images/", "/edw/api/entities/%20/images/",
             "/edw/api/entities/7/images/abc/", "/edw/api/entities-images/;x", "/edw/api/entities-images/%00/",
             "/edw/api/entities-images/%ff/", "/edw/api/entities-images/%", "/edw/api/entities-images/\u044f/",
             "/static/rest_framework/css/bootstrap.min.css", "/edw/api/entities-images//", "/edw//api/",
             "/edw/api/entities-images/%D9%A3.api", "/edw/api/entities/%D9%A7/images/%D9%A3.api",
             "/edw/api/entities-images/%EF%BC%93.api", "/edw/api/entities-images/%203.api",
             "/edw/api/entities-images/3//", "*", "/favicon.ico", "/edw/api/entities-images-x/"]


def paths(rng):
    path = rng.choice(ODD_PATHS)
    if path == "*":
        return Request("paths", "OPTIONS", path, ())
    path = "".join(c if ord(c) < 0x80 else quote(c) for c in path) if rng.random() < 0.5 else path
    path = path.replace(" ", "%20")  # a raw space would make the request line four words
    method = rng.choice(["GET"] * 6 + ["HEAD", "OPTIONS", "POST"])
    headers = ("Content-Length: 0",) if method == "POST" else ()
    return Request("paths", method, path + query(rng, paging_pairs(rng) if rng.random() < 0.4 else []), headers)


def entity(rng):
    pairs = paging_pairs(rng) if rng.random() < 0.5 else []
    for _ in range(rng.choice([1, 1, 1, 2])):
        roll = rng.random()
        if roll < 0.5:
            value = str(rng.choice([7, 3, 12, 40, 1, 5, 99, 250, 999, 0, -1]))
        elif roll < 0.7:
            value = int_text(rng, ENTITY_CEILING)
        else:
            value = rng.choice(["1.0", "7.00", "1.5", "1e1", "7e0", "NaN", "Infinity", "-0", "1e51", "0x7", "",
                                " 3 ", "٣", "3.", ".5", "1E1", "+7", "7 ", "1_2", "9223372036854775807"])
        pairs.insert(rng.randrange(len(pairs) + 1), ("entity", encode(rng, value)))
    roll = rng.random()
    if roll < 0.65:
        base = P
    elif roll < 0.8:
        base = E + str(rng.choice([7, 3, 999])) + "/images/"
    else:  # a record's routes: edw's filter runs in get_object() too
        base = rng.choice([P + "3/", P + "4/", P + "99999/", E + "7/images/3/", E + "abc/images/4/", P + "3.json"])
    return Request("entity", rng.choice(["GET"] * 9 + ["HEAD"]), base + query(rng, pairs), extra_headers(rng))


OTHER_HEADERS = ["User-Agent: curl/7.88.1", "User-Agent: Mozilla/5.0 (X11; Linux x86_64)", "Accept-Encoding: gzip",
                 "Accept-Encoding: gzip, deflate, br", "Accept-Encoding: identity", "Accept-Language: ru,en;q=0.5",
                 "Cookie: sessionid=abc; csrftoken=xyz", "Origin: http://example.org", "Referer: http://a.org/x",
                 "If-None-Match: \"abc\"", "If-Modified-Since: Wed, 21 Oct 2015 07:28:00 GMT",
                 "Cache-Control: no-cache", "Pragma: no-cache", "X-Requested-With: XMLHttpRequest", "DNT: 1",
                 "Range: bytes=0-10", "X-CSRFToken: abc", "Content-Type: application/json", "TE: trailers",
                 "Upgrade-Insecure-Requests: 1", "X-Custom: \u00e9t\u00e9", "X-Empty-Looking: -",
                 "Access-Control-Request-Method: GET", "Sec-Fetch-Mode: cors", "X-HTTP-Method-Override: DELETE",
                 "Content-Length: 0", "Via: 1.1 proxy", "Max-Forwards: 3", "Expect: 100-continue"]
# "Expect: 100-continue": both answer "100 Continue" first (rawhttp keeps interim answers; they are compared).


def client_headers(rng):
    headers = tuple(rng.sample(OTHER_HEADERS, rng.randint(1, 3)))
    method = rng.choice(["GET"] * 8 + ["HEAD", "OPTIONS"])
    return Request("headers", method, list_path(rng) + query(rng, paging_pairs(rng)), headers)


NAMES = ["photo.jpg", "My Photo (1).JPEG", "Снимок экрана.png", "Crème brûlée.png", "a.png", "UPPER.PNG",
         "no-extension", "dots.in.name.jpg", "C:\\Users\\x\\y.png", "space .png", "x.gif", "émoji 😀.png"]


def uploads(rng):
    """POST as the user (now and then anonymous): mostly valid uploads, some with bad fields."""
    parts = [("image", rng.choice(NAMES), rng.choice(["image/jpeg", "image/png"]), rng.choice([JPEG_BYTES, PNG_1X1]))]
    if rng.random() < 0.9:
        parts.append(("entity", rng.choice(["7", "3", "12", "40", "1", "5", "99", "250"])))
    if rng.random() < 0.4:
        parts.append(("order", rng.choice(["0", "1", "-2", "32767", "-32768", "2.0", "abc", "", "32768"])))
    if rng.random() < 0.3:
        parts.append(("key", rng.choice(["0", "7", "-1", "2147483647", "x", ""])))
    rng.shuffle(parts)
    headers, body = upload(*parts, auth=rng.random() < 0.9)
    if rng.random() < 0.2:
        headers += ("Expect: 100-continue",)
    target = P if rng.random() < 0.8 else E + rng.choice(["7", "12", "abc"]) + "/images/"
    return Request("uploads", "POST", target, headers, body)


#  family           weight  function
FAMILIES = [
    ("pages",           14, pages),
    ("int-forms",       16, int_forms),
    ("query",           10, query_oddities),
    ("format",           8, format_and_suffix),
    ("accept",           8, accept),
    ("host",             8, host_headers),
    ("methods",          9, methods),
    ("auth",             5, credentials),
    ("paths",            8, paths),
    ("entity",           8, entity),
    ("headers",          5, client_headers),
    ("uploads",          2, uploads),
]


def _selects_html(request):
    return ("format=api" in request.target or ".api" in request.target
            or any(line.lower().startswith("accept:") and ("html" in line or "text/*" in line)
                   for line in request.headers))


def generate(seed, count):
    rng = random.Random(seed)
    functions = [function for _, _, function in FAMILIES]
    weights = [weight for _, weight, _ in FAMILIES]
    for _ in range(count):
        request = rng.choices(functions, weights)[0](rng)
        # HEAD is compared by Content-Length, and the browsable page's markup is the mock's own (only its parts
        # are compared), so a HEAD that may select the page goes out as GET.
        yield request._replace(method="GET") if request.method == "HEAD" and _selects_html(request) else request
