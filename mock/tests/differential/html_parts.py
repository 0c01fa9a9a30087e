"""What a person reads on a browsable API page, taken apart for comparison (docs/differential-test.md).

DRF's page is Bootstrap markup with a CSRF token and /static/ assets; the mock's is self-contained markup of its
own. The test therefore compares what both must agree on: the title, the breadcrumb links, the request line, the
response block (status, headers, the JSON indented by 4 with its links, byte for byte), the page-number controls,
the format links, and whether the filter and upload forms are offered.
"""

import re

_A_TAG = re.compile(rb"<a\s([^>]*)>(.*?)</a>", re.S)
_HREF = re.compile(rb'href="([^"]*)"')


def _block(page, css_class):
    match = re.search(rb'<div class="' + css_class + rb'"[^>]*>\s*<pre class="prettyprint">(.*?)</pre>', page, re.S)
    return match.group(1) if match else None


def _links(fragment):
    """(class of the enclosing <li>, href, text) for each link in a list fragment."""
    out = []
    for item in re.findall(rb"<li([^>]*)>(.*?)</li>", fragment, re.S):
        css = re.search(rb'class="([^"]*)"', item[0])
        tag = _A_TAG.search(item[1])
        if not tag:
            continue
        href = _HREF.search(tag.group(1))
        text = re.sub(rb"<[^>]+>", b"", tag.group(2)).strip()
        out.append((css.group(1) if css else b"", href.group(1) if href else None, text))
    return out


def is_browsable_page(response):
    return (any(v.startswith("text/html") for v in response.header("Content-Type"))
            and b"response-info" in response.body)


def parts(page):
    """A dict of the compared parts of one page (host already normalised)."""
    out = {}
    title = re.search(rb"<title>(.*?)</title>", page, re.S)
    out["title"] = title.group(1).strip() if title else None
    crumbs = re.search(rb'<ul class="breadcrumb">(.*?)</ul>', page, re.S)
    out["breadcrumb"] = _links(crumbs.group(1)) if crumbs else None
    out["request line"] = _block(page, rb"request-info")
    out["response block"] = _block(page, rb"response-info")
    pagination = re.search(rb'<ul class="pagination"[^>]*>(.*?)</ul>', page, re.S)
    out["page controls"] = _links(pagination.group(1)) if pagination else None
    out["format links"] = [(_HREF.search(attrs).group(1), text) for attrs, text in _A_TAG.findall(page)
                           if b"format-option" in attrs]
    out["filter form"] = b'name="entity" step="any"' in page
    out["upload form"] = b'enctype="multipart/form-data"' in page
    return out


def _around_first_difference(a, b, context=80):
    a, b = repr(a), repr(b)
    at = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
    start = max(0, at - context)
    return f"DRF …{a[start:at + context]}… vs mock …{b[start:at + context]}… (first difference at {at})"


def differences(drf_page, mock_page):
    drf_parts, mock_parts = parts(drf_page), parts(mock_page)
    return [f"browsable page, {name}: " + _around_first_difference(drf_parts[name], mock_parts[name])
            for name in drf_parts if drf_parts[name] != mock_parts[name]]
