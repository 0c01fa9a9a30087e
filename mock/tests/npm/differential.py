#!/usr/bin/python3
"""The npm package against the native mock: seeded random requests sent to the native mock over HTTP, to the
WebAssembly core through createMock().fetch and through MSW's handlers (app/fetch_driver.mjs, in the folder where
the tarball is installed next to msw) and to the package's Node server
(`entities-images-mock`, bin/), answer by answer: identical status and reason, client-visible headers and body
bytes (upload uuids and the browsable page's CSRF token masked, as the DRF differential masks them).

The requests are the native random differential's (mock/tests/differential/random_requests.py), so every family it
draws (pages, odd limits and offsets, queries, formats, Accept, hosts, methods, credentials, paths, entities,
headers, uploads) meets every front. Framing headers (Content-Length is compared through the body, Transfer-Encoding,
Connection, Keep-Alive) are each front's; Date is compared by presence. Where a front cannot carry a request as the
native one does (FRONT_KNOWN, docs/npm.md) a difference is counted under its name; any other fails the run and is
printed with a curl command that replays it against the native mock.

Usage: differential.py --mock BINARY --app DIR --dataset FILE [--seed S]... [--requests N] [--fronts fetch,msw,node]
Seeds: --seed, else $ENTIMG_TEST_SEED (comma-separated), else 1. Exit 0: no unexplained difference; 1: some;
2: a server or the driver did not start.
"""

import argparse
import base64
import gzip
import json
import os
import random
import re
import subprocess
import sys
import time
import urllib.parse

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "differential"))

from compare import normalise  # noqa: E402
from random_requests import Request, generate  # noqa: E402
from rawhttp import build_request, exchange  # noqa: E402
from run_differential import USER, dataset_uuids  # noqa: E402
from run_random import curl_command  # noqa: E402
from servers import Server  # noqa: E402

FRAMING = {"content-length", "transfer-encoding", "connection", "keep-alive", "date"}


def _target_rewritten(request, answer, _problems):
    return answer.get("target") not in (None, request.target)


def _outside_handlers(request, _answer, _problems):
    return not re.match(r"/(edw|media)(/|$)", request.target)


GZIP_DECODED = "the body arrived gunzipped (fetch decodes Content-Encoding), its text the same as the native one's"


def _node_refused(_request, answer, _problems):
    # Node's HTTP parser answers a request it cannot parse itself: 400 with no Content-Type, then closes.
    return answer.get("status") == 400 and not any(n == "content-type" for n, _ in answer.get("headers", []))


# Where a front must differ from the native one. A request that differs and matches one of these is counted
# under its name; one that matches and does not differ counts as identical.
#  front    name                          predicate(request, answer)       why
FRONT_KNOWN = [
    ("msw", "outside-the-handlers", _outside_handlers,
     "handlers() answers the paths under /edw/ and /media/ of its baseUrl; MSW leaves any other path to the app's "
     "other handlers (here: an unhandled request, an error; a .css or picture name goes to the network), where "
     "the native mock answers Django's 404"),
    ("msw", "fetch-decodes-gzip", lambda r, a, p: p == [GZIP_DECODED],
     "the app's fetch() hands over a gzipped body decoded (as a browser's does); its text is compared instead"),
    ("fetch,msw", "fetch-refuses-request", lambda r, a, p: "refused" in a,
     "the Fetch Request constructor refuses the request before any server could see it (TRACE, a body on GET)"),
    ("fetch,msw", "url-parser-rewrites-target", _target_rewritten,
     "the WHATWG URL parser rewrites the target before the mock sees it: dot segments resolved "
     "(/a/../b -> /b), raw non-ASCII bytes and spaces percent-encoded; the native front gets the raw bytes"),
    ("node", "node-parser-refuses", _node_refused,
     "Node's HTTP parser refuses a request the native front passes to DRF's logic (answering 400 itself)"),
]



class FetchDriver:
    """app/fetch_driver.mjs, run in the app folder: createMock().fetch, or with --msw the app's fetch() through
    MSW's handlers, one request a line."""

    def __init__(self, app, dataset, flags):
        self.process = subprocess.Popen(
            ["node", os.path.join(app, "fetch_driver.mjs"), "--dataset", os.path.abspath(dataset), "--user", USER]
            + flags,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=app)
        line = self.process.stdout.readline()
        if line.strip() != "ready":
            raise RuntimeError(f"fetch_driver.mjs did not start (said {line!r})")

    def ask(self, request, origin):
        headers = []
        for line in request.headers:
            name, _, value = line.partition(":")
            # The bytes on the wire as latin-1 text, as a Fetch Headers object holds header values.
            headers.append([name.strip(), value.strip(" \t").encode("utf-8").decode("latin-1")])
        query = {"origin": origin, "target": request.target, "method": request.method, "headers": headers,
                 "body": base64.b64encode(request.body).decode() if request.body else None}
        self.process.stdin.write(json.dumps(query) + "\n")
        self.process.stdin.flush()
        answer = json.loads(self.process.stdout.readline())
        if "body" in answer:
            answer["body"] = base64.b64decode(answer["body"])
        return answer

    def stop(self):
        self.process.stdin.close()
        try:
            self.process.wait(5)
        except subprocess.TimeoutExpired:
            self.process.kill()


def raw_answer(server, request):
    """The answer of a server over HTTP, in the fetch driver's shape."""
    response = exchange(server.port, build_request(request.method, request.target, f"127.0.0.1:{server.port}",
                                                   list(request.headers), request.body), request.method == "HEAD")
    if response.error:
        return {"error": response.error}
    code, _, reason = response.status_line.partition(" ")[2].partition(" ")
    return {"status": int(code) if code.isdigit() else code, "reason": reason,
            "headers": [(n.lower(), v) for n, v in response.headers], "body": response.body}


def _headers(answer, host, known_uuids):
    joined = {}
    for name, value in answer["headers"]:
        name = name.lower()
        if name in FRAMING:
            continue
        value = normalise(value.encode("latin-1"), host, known_uuids).decode("latin-1")
        joined[name] = joined[name] + ", " + value if name in joined else value
    return joined


def differences(native, other, native_host, other_host, known_uuids):
    """Descriptions of how `other` differs from `native` (empty when the client sees the same answer)."""
    for label, answer in (("native", native), ("front", other)):
        if "error" in answer:
            return [f"{label} exchange failed: {answer['error']}"]
        if "refused" in answer:
            return [f"the front refused the request: {answer['refused']}"]
    problems = []
    if (native["status"], native["reason"]) != (other["status"], other["reason"]):
        problems.append(f"status: native {native['status']} {native['reason']!r} vs {other['status']} {other['reason']!r}")
    a, b = _headers(native, native_host, known_uuids), _headers(other, other_host, known_uuids)
    for name in sorted(set(a) | set(b)):
        if a.get(name) != b.get(name):
            problems.append(f"header {name}: native {a.get(name)!r} vs {b.get(name)!r}")
    if not any(n.lower() == "date" for n, _ in other["headers"]):
        problems.append("no Date header (a deployment sends one on every answer)")
    native_body, other_body = native["body"], other["body"]
    gzip_magic = b"\x1f\x8b"
    if a.get("content-encoding") == "gzip" and b.get("content-encoding") == "gzip" and \
            native_body.startswith(gzip_magic) and not other_body.startswith(gzip_magic):
        # fetch() (MSW's front) decodes a gzipped body as a browser does: the texts must be equal.
        native_body = gzip.decompress(native_body)
        if normalise(native_body, native_host, known_uuids) == normalise(other_body, other_host, known_uuids):
            problems.append(GZIP_DECODED)
    elif a.get("content-encoding") == "gzip" and b.get("content-encoding") == "gzip" and \
            native_body.startswith(gzip_magic) and other_body.startswith(gzip_magic):
        # An upload's random uuid inside a gzipped page: the texts are compared unzipped (masked), and each
        # side's bytes must be exactly Python's gzip of its own text (what --gzip promises). A HEAD answer
        # says gzip with no body (as Django's): the empty bodies are compared as they are, below.
        native_body, other_body = gzip.decompress(native_body), gzip.decompress(other_body)
        for label, plain, packed in (("native", native_body, native["body"]), ("front", other_body, other["body"])):
            if gzip.compress(plain, 6, mtime=0) != packed:
                problems.append(f"{label} gzip bytes are not Python's gzip.compress(text, 6, mtime=0)")
    native_body = normalise(native_body, native_host, known_uuids)
    other_body = normalise(other_body, other_host, known_uuids)
    if native_body != other_body:
        at = next((i for i, (x, y) in enumerate(zip(native_body, other_body)) if x != y),
                  min(len(native_body), len(other_body)))
        problems.append(f"body differs at byte {at} (native {len(native_body)} bytes, other {len(other_body)}): "
                        f"native {native_body[max(0, at - 40):at + 40]!r} vs {other_body[max(0, at - 40):at + 40]!r}")
    return problems


def known_kind(front, request, answer, problems):
    return next((name for fronts, name, predicate, _ in FRONT_KNOWN
                 if front in fronts.split(",") and predicate(request, answer, problems)), None)


def picture_requests(seed, count, dataset):
    """--pictures: `count` requests for the dataset's pictures (GET or HEAD, no Range or one of many forms)."""
    rng = random.Random(seed)
    files = []
    with open(dataset, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                files.append(json.loads(line)["file"])
    ranges = ["bytes=0-0", "bytes=0-99", "bytes=-100", "bytes=100-", "bytes=0-0,-1", "bytes=0-9,20-29,5-14",
              "bytes=99999999-", "bytes=-0", "bytes=0-,0-", "items=0-1", "bytes=abc", "bytes= 1 - 2 , 4-5"]
    for _ in range(count):
        headers = []
        if rng.random() < 0.7:
            a, b = rng.randrange(2_000_000), rng.randrange(2_000_000)
            headers.append("Range: " + rng.choice(ranges + [f"bytes={min(a, b)}-{max(a, b)}", f"bytes=-{a}"]))
        if rng.random() < 0.1:
            headers.append('If-Range: "x"')
        target = "/media/" + urllib.parse.quote(rng.choice(files))
        yield Request("pictures", rng.choice(["GET", "GET", "GET", "HEAD"]), target, tuple(headers))


def run_seed(seed, count, args, known_uuids, totals):
    """Sends `count` requests of `seed` to the native mock and to each front; returns the unexplained count."""
    flags = (["--gzip"] if args.gzip else []) + [word for origin in args.cors for word in ("--cors", origin)]
    flags += ["--sized-pictures"] if args.sized_pictures else []
    native = Server("native mock", [args.mock, "--dataset", args.dataset, "--port", "0", "--host", "127.0.0.1",
                                    "--user", USER, "--quiet"] + flags)
    package = os.path.join(args.app, "node_modules", "entities-images-mock")
    node = Server("node front", ["node", os.path.join(package, "bin", "entities-images-mock.js"), "--dataset",
                                 args.dataset, "--port", "0", "--host", "127.0.0.1", "--user", USER, "--quiet"] + flags)
    drivers = {}
    unexplained = 0
    counts = {front: {"identical": 0, "different": 0} for front in args.fronts}
    started = time.monotonic()
    try:
        native.start()
        if "node" in args.fronts:
            node.start()
        native_host = f"127.0.0.1:{native.port}"
        if "fetch" in args.fronts:
            drivers["fetch"] = FetchDriver(args.app, args.dataset,
                                           flags + (["--break-body"] if args.break_fetch else []))
        if "msw" in args.fronts:
            drivers["msw"] = FetchDriver(args.app, args.dataset, flags + ["--msw", f"http://{native_host}"])
        requests = picture_requests(seed, count, args.dataset) if args.pictures else generate(seed, count)
        for index, request in enumerate(requests):
            reference = raw_answer(native, request)
            for front in args.fronts:
                if front in drivers:
                    answer, host = drivers[front].ask(request, f"http://{native_host}"), native_host
                else:
                    answer, host = raw_answer(node, request), f"127.0.0.1:{node.port}"
                problems = differences(reference, answer, native_host, host, known_uuids)
                if not problems:
                    counts[front]["identical"] += 1
                    continue
                kind = known_kind(front, request, answer, problems)
                if kind:
                    key = (front, kind)
                    totals[key] = totals.get(key, 0) + 1
                    if totals[key] > args.show_known:
                        continue
                else:
                    counts[front]["different"] += 1
                    unexplained += 1
                label = f"known {front}/{kind}" if kind else f"DIFFERENT ({front})"
                print(f"{label}: seed {seed} request #{index} ({request.family})")
                print("  " + curl_command(request))
                for problem in problems:
                    print("    " + problem)
    finally:
        for driver in drivers.values():
            driver.stop()
        for server in (node, native):
            server.stop()
    summary = "; ".join(f"{front}: {c['identical']} identical, {c['different']} unexplained"
                        for front, c in counts.items())
    print(f"seed {seed}: {count} requests; {summary} ({time.monotonic() - started:.1f} s)")
    return unexplained


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mock", required=True, help="the native mock binary")
    parser.add_argument("--app", required=True,
                        help="the app folder install_package.sh made (the tarball and msw installed, fetch_driver.mjs)")
    parser.add_argument("--dataset", required=True, help="JSON Lines dataset given to every side")
    parser.add_argument("--seed", action="append", type=int, help="a seed (repeatable)")
    parser.add_argument("--requests", type=int, default=300, help="requests per seed")
    parser.add_argument("--fronts", default="fetch,msw,node",
                        help="fetch (createMock().fetch), msw (fetch() through MSW's handlers), node (the npx server)")
    parser.add_argument("--gzip", action="store_true", help="every side with --gzip (Django's GZipMiddleware)")
    parser.add_argument("--cors", action="append", default=[], help="every side with --cors ORIGIN (repeatable)")
    parser.add_argument("--sized-pictures", action="store_true",
                        help="every side with --sized-pictures (sizedPictures: pictures of their file_size)")
    parser.add_argument("--pictures", action="store_true",
                        help="requests for the dataset's pictures (with Range headers), not the random families")
    parser.add_argument("--break-fetch", action="store_true",
                        help="self-check: the fetch front adds a byte to every body, so every answer must differ")
    parser.add_argument("--show-known", type=int, default=1, help="examples printed per known difference")
    args = parser.parse_args()
    args.fronts = [f for f in args.fronts.split(",") if f]
    if not args.seed:
        env = os.environ.get("ENTIMG_TEST_SEED", "").strip()
        args.seed = [int(s) for s in env.split(",")] if env else [1]
    known_uuids = dataset_uuids(args.dataset)
    print(f"seeds {', '.join(map(str, args.seed))}; {args.requests} requests each; fronts {', '.join(args.fronts)}; "
          f"replay one: ENTIMG_TEST_SEED=S {' '.join(sys.argv)}")
    totals = {}
    unexplained = 0
    try:
        for seed in args.seed:
            unexplained += run_seed(seed, args.requests, args, known_uuids, totals)
    except (RuntimeError, OSError) as error:
        print(f"ERROR {error}")
        return 2
    for fronts, name, _, why in FRONT_KNOWN:
        for front in fronts.split(","):
            if front in args.fronts:
                print(f"known {front}/{name}: {totals.get((front, name), 0)} — {why}")
    print(f"{'FAIL' if unexplained else 'PASS'}: {unexplained} unexplained difference(s)")
    return 1 if unexplained else 0


if __name__ == "__main__":
    sys.exit(main())
