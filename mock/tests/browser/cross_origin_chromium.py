#!/usr/bin/python3
"""Headless Chromium, as a browser app on another origin: with --cors naming the app's origin (or '*') it
reads a page of the listing (and the Allow header the mock exposes) and decodes the first record's picture;
with --cors naming some other origin the browser blocks the same fetch."""

import argparse
import functools
import http.server
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "contract",
                                "tests", "blackbox"))
from servers import serve  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))


def run_page(chromium, page_url, profile):
    done = subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                           "--user-data-dir=" + profile, "--virtual-time-budget=10000", "--dump-dom", page_url],
                          capture_output=True, text=True, timeout=120)
    match = re.search(r"RESULT (\{.*\})", done.stdout)
    if not match:
        raise RuntimeError("no result in the page; chromium said:\n%s\n%s" % (done.stdout[-2000:], done.stderr[-2000:]))
    return json.loads(match.group(1).replace("&quot;", '"'))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mock", required=True)
    parser.add_argument("--chromium", default=shutil.which("chromium") or "chromium")
    args = parser.parse_args()
    if not shutil.which(args.chromium):
        print("FAIL: chromium not found (ci/setup.sh installs Debian's chromium)")
        sys.exit(1)

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    handler = functools.partial(Quiet, directory=HERE)
    app = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=app.serve_forever, daemon=True).start()
    app_origin = "http://127.0.0.1:%d" % app.server_address[1]
    failures = 0
    try:
        with tempfile.TemporaryDirectory(prefix="entimg-chromium-") as profile:
            for cors, allowed in ((app_origin, True), ("*", True), ("http://elsewhere.example", False)):
                with serve([args.mock, "--port", "0", "--records", "500", "--cors", cors, "--quiet"]) as api:
                    got = run_page(args.chromium, app_origin + "/cross_origin.html?api=" + api, profile)
                    if allowed:
                        ok = (got.get("page", {}).get("status") == 200 and got["page"]["results"] == 3
                              and got["page"]["count"] == 500 and got["page"]["allow"] == "GET, POST, HEAD, OPTIONS"
                              and got.get("image", {}).get("status") == 200
                              and got["image"]["type"] in ("image/png", "image/jpeg")
                              and (got["image"]["width"], got["image"]["height"]) == (192, 128))
                    else:
                        ok = "page" not in got and "Failed to fetch" in got.get("error", "")
                    print("%s --cors %s: %s" % ("PASS" if ok else "FAIL", cors, json.dumps(got)))
                    failures += 0 if ok else 1
    finally:
        app.shutdown()
    print("%d failed" % failures)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
