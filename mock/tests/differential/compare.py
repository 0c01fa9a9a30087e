"""Compares one DRF answer with one mock answer and describes every difference so a person can act on it."""

import email.utils
import json
import re

import html_parts

PLACEHOLDER = b"{HOST}"
# The security headers are those of the middleware of Django's project template (edwsim/settings.py).
COMPARED_HEADERS = ("Content-Type", "Allow", "Vary", "Location", "X-Frame-Options", "X-Content-Type-Options",
                    "Referrer-Policy")
CONTEXT_BYTES = 60
# The browsable API embeds a fresh CSRF token in every page; it can never be equal, so it is masked.
CSRF_TOKEN = re.compile(rb'(csrfToken: ")[A-Za-z0-9]*(")')


# An upload's stored path is filer_public/<uuid[0:2]>/<uuid[2:4]>/<uuid4>/<name>, with a fresh random uuid4 on
# each server, and it shows in exactly two fields of the record a POST created: `file` and `image` (the latter
# percent-encoded behind MEDIA_URL). Those are the only masked bytes: for the groups in run_differential's
# UPLOAD_GROUPS the three uuid segments become {UPLOAD-n}, n counting the distinct uuids of one body in order of
# appearance. Only a well-formed triple is masked (the two dirs equal to the uuid's first four hex digits,
# version 4, variant 8-b) and only a uuid that is not in the dataset, so the dataset's own paths and the stored
# file name are still compared byte for byte. The numbering keeps a record's `file` and `image` on one uuid and
# different uploads on different ones.
UPLOAD_UUID_DIRS = re.compile(rb"filer_public/([0-9a-f]{2})/([0-9a-f]{2})/"
                              rb"(\1\2[0-9a-f]{4}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12})/")


def mask_upload_uuids(data, known_uuids):
    numbers = {}

    def replace(match):
        if match.group(3) in known_uuids:
            return match.group(0)
        number = numbers.setdefault(match.group(3), len(numbers) + 1)
        return b"filer_public/{UPLOAD-%d}/" % number

    return UPLOAD_UUID_DIRS.sub(replace, data)


def normalise(data, host, known_uuids=None):
    """Replaces the server's own `127.0.0.1:PORT` so two servers on different ports can be compared, and (when
    `known_uuids`, the dataset's uuids as bytes, is given) masks the uuids of uploaded files."""
    data = CSRF_TOKEN.sub(rb"\1{CSRF}\2", data.replace(host.encode("ascii"), PLACEHOLDER))
    return data if known_uuids is None else mask_upload_uuids(data, known_uuids)


def _show(data):
    """Bytes as «text»: printable characters as they are, others as ⟨U+XXXX⟩, invalid UTF-8 bytes as ⟨xHH⟩."""
    out = []
    for char in data.decode("utf-8", "surrogateescape"):
        if 0xDC80 <= ord(char) <= 0xDCFF:
            out.append(f"⟨x{ord(char) - 0xDC00:02X}⟩")
        elif char.isprintable() and char not in "«»⟨⟩":
            out.append(char)
        else:
            out.append(f"⟨U+{ord(char):04X}⟩")
    return "«" + "".join(out) + "»"


def _char_start(data, offset):
    while 0 < offset < len(data) and 0x80 <= data[offset] < 0xC0:
        offset -= 1
    return offset


def first_difference(a, b):
    limit = min(len(a), len(b))
    for offset in range(limit):
        if a[offset] != b[offset]:
            return offset
    return limit if len(a) != len(b) else None


def _json_path_difference(a, b, path=""):
    """First differing JSON pointer (key order counts), or None."""
    if isinstance(a, list) and isinstance(b, list) and a and b and all(isinstance(x, tuple) for x in a + b):
        for (key_a, val_a), (key_b, val_b) in zip(a, b):
            if key_a != key_b:
                return f"{path}: key {key_a!r} in DRF where the mock has {key_b!r}"
            found = _json_path_difference(val_a, val_b, f"{path}/{key_a}")
            if found:
                return found
        if len(a) != len(b):
            return f"{path}: DRF has keys {[k for k, _ in a]}, mock has {[k for k, _ in b]}"
        return None
    if isinstance(a, list) and isinstance(b, list):
        for index, (val_a, val_b) in enumerate(zip(a, b)):
            found = _json_path_difference(val_a, val_b, f"{path}/{index}")
            if found:
                return found
        if len(a) != len(b):
            return f"{path}: DRF has {len(a)} items, mock has {len(b)}"
        return None
    if type(a) is not type(b) or a != b:
        return f"{path or '/'}: DRF {json.dumps(a, ensure_ascii=True)} vs mock {json.dumps(b, ensure_ascii=True)}"
    return None


def _pairs(items):
    return [tuple(item) for item in items]


def describe_body_difference(drf_body, mock_body):
    offset = first_difference(drf_body, mock_body)
    if offset is None:
        return None
    start = _char_start(drf_body, max(0, offset - CONTEXT_BYTES))
    lines = [f"body differs at byte {offset} (after host normalisation; DRF {len(drf_body)} bytes, "
             f"mock {len(mock_body)} bytes); context from byte {start}, '▶' marks the first difference:"]
    for label, body in (("DRF ", drf_body), ("mock", mock_body)):
        before = body[start:offset]
        after = body[offset:offset + CONTEXT_BYTES]
        lines.append(f"    {label}: {_show(before)} ▶ {_show(after)}")
    try:
        drf_json = json.loads(drf_body, object_pairs_hook=_pairs)
        mock_json = json.loads(mock_body, object_pairs_hook=_pairs)
    except ValueError:
        if _parses(drf_body):
            lines.append("    JSON: the DRF body is JSON, the mock's is not")
    else:
        where = _json_path_difference(drf_json, mock_json)
        lines.append(f"    JSON: first difference at {where}" if where else
                     "    JSON: both parse to the same value; only the encoding differs")
    return "\n".join(lines)


def _parses(body):
    try:
        json.loads(body)
        return True
    except ValueError:
        return False


def _content_length(response):
    """The Content-Length value, or None if absent, not a number or repeated with different values."""
    values = set(response.header("Content-Length"))
    return int(values.pop()) if len(values) == 1 and next(iter(values)).isdigit() else None


def compare(drf, mock, drf_host, mock_host, head=None, known_uuids=None):
    """Returns a list of difference descriptions (empty when the answers agree).

    `head` is None for a GET-like request; for HEAD it is (drf_get, mock_get, mock_body_must_be_empty): the answers
    to the same request as GET, used to check Content-Length. `known_uuids` switches on the masking of upload
    uuids in bodies (see mask_upload_uuids).
    """
    for label, response in (("DRF", drf), ("mock", mock)):
        if response.error:
            return [f"{label} exchange failed: {response.error}"]
    problems = _repeated_headers(drf, mock)
    if drf.interim != mock.interim:
        problems.append(f"interim answers: DRF {drf.interim} vs mock {mock.interim}")
    if drf.status_line.split(" ", 1)[1:] != mock.status_line.split(" ", 1)[1:]:
        problems.append(f"status: DRF {drf.status_line!r} vs mock {mock.status_line!r}")
    if drf.framing != mock.framing:
        problems.append(f"framing: DRF {drf.framing} vs mock {mock.framing} (Content-Length {drf.header('Content-Length')} "
                        f"vs {mock.header('Content-Length')}, Transfer-Encoding {drf.header('Transfer-Encoding')} vs "
                        f"{mock.header('Transfer-Encoding')})")
    problems += _date_problems(drf, mock)
    for name in COMPARED_HEADERS:
        drf_values = [normalise(v.encode("latin-1"), drf_host) for v in drf.header(name)]
        mock_values = [normalise(v.encode("latin-1"), mock_host) for v in mock.header(name)]
        if drf_values != mock_values:
            show = lambda values: " | ".join(_show(v) for v in values) if values else "(absent)"
            problems.append(f"header {name}: DRF {show(drf_values)} vs mock {show(mock_values)}")
    if head is None:
        problems += _check_length_matches_body("mock", mock)
        problems += _check_length_matches_body("DRF", drf)
        if html_parts.is_browsable_page(drf):
            # The browsable page: its parts, not its markup (html_parts.py says why).
            problems += html_parts.differences(normalise(drf.body, drf_host, known_uuids),
                                               normalise(mock.body, mock_host, known_uuids))
        else:
            body_problem = describe_body_difference(normalise(drf.body, drf_host, known_uuids),
                                                normalise(mock.body, mock_host, known_uuids))
            if body_problem:
                problems.append(body_problem)
    else:
        problems += _compare_head(drf, mock, drf_host, mock_host, *head)
    return problems


# RFC 9110 §5.6.7: IMF-fixdate, as gunicorn, nginx and Python's http.server write Date.
IMF_FIXDATE = re.compile(r"(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d\d (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) "
                         r"\d{4} \d\d:\d\d:\d\d GMT")
DATE_SKEW_SECONDS = 300


def _date_problems(drf, mock):
    """Date: sent once by both, in IMF-fixdate, the two within a few minutes (their values differ by when)."""
    values = {label: response.header("Date") for label, response in (("DRF", drf), ("mock", mock))}
    if bool(values["DRF"]) != bool(values["mock"]):
        return [f"header Date: DRF {values['DRF'] or '(absent)'} vs mock {values['mock'] or '(absent)'}"]
    if not values["mock"]:
        return []
    bad = [f"{label} {v}" for label, vs in values.items() for v in vs if not IMF_FIXDATE.fullmatch(v)]
    if bad:
        return [f"header Date not in IMF-fixdate: {', '.join(bad)}"]
    drf_at, mock_at = (email.utils.parsedate_to_datetime(values[label][0]) for label in ("DRF", "mock"))
    if abs((drf_at - mock_at).total_seconds()) > DATE_SKEW_SECONDS:
        return [f"header Date: DRF {values['DRF'][0]} vs mock {values['mock'][0]}: more than {DATE_SKEW_SECONDS} s apart"]
    return []


def _repeated_headers(drf, mock):
    """A header the mock repeats where DRF sends it once or not at all (e.g. two Content-Length lines)."""
    problems = []
    for name in dict.fromkeys(key.lower() for key, _ in mock.headers):
        times = len(mock.header(name))
        if times > 1 and times > len(drf.header(name)):
            wire_name = next(key for key, _ in mock.headers if key.lower() == name)
            problems.append(f"header {wire_name} repeated: the mock sends it {times} times "
                            f"({' | '.join(mock.header(name))}), DRF {len(drf.header(name))} time(s)")
    return problems


HOP_HEADERS = {"date", "server", "connection", "keep-alive", "transfer-encoding"}


def one_sided_headers(drf, mock):
    """Header names (lowercase) only the DRF side / only the mock sends, ignoring per-server ones like Date."""
    drf_names = {key.lower() for key, _ in drf.headers} - HOP_HEADERS
    mock_names = {key.lower() for key, _ in mock.headers} - HOP_HEADERS
    return sorted(drf_names - mock_names), sorted(mock_names - drf_names)


def _check_length_matches_body(label, response):
    length = _content_length(response)
    if length is not None and length != len(response.body):
        return [f"{label} Content-Length {length} but {len(response.body)} body bytes"]
    return []


def _normalised_length(response, get_response, host):
    """Content-Length as it would be with every `127.0.0.1:PORT` of the GET body replaced by the placeholder."""
    length = _content_length(response)
    if length is None:
        return None
    occurrences = get_response.body.count(host.encode("ascii"))
    return length + occurrences * (len(PLACEHOLDER) - len(host))


def _compare_head(drf, mock, drf_host, mock_host, drf_get, mock_get, mock_body_must_be_empty):
    problems = []
    drf_length = _normalised_length(drf, drf_get, drf_host)
    mock_length = _normalised_length(mock, mock_get, mock_host)
    # Without a DRF Content-Length (Django's 400 for a bad Host has none) there is nothing to compare against.
    if drf_length is not None and drf_length != mock_length:
        problems.append(f"header Content-Length (host-normalised): DRF {drf_length} vs mock {mock_length} "
                        f"(raw: DRF {drf.header('Content-Length')} vs mock {mock.header('Content-Length')})")
    own_length = _content_length(mock)
    if own_length is not None and not mock_get.error and own_length != len(mock_get.body):
        problems.append(f"mock HEAD Content-Length {own_length} but its GET body has {len(mock_get.body)} bytes")
    if mock_body_must_be_empty and mock.body:
        problems.append(f"mock sent {len(mock.body)} body bytes after HEAD (must be none): {_show(mock.body[:80])}")
    return problems
