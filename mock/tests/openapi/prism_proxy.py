#!/usr/bin/python3
"""Prism's validating proxy (@stoplight/prism-cli) in front of a server, over the differential's seeded requests.

Every request of random_requests.generate() on the OpenAPI document's routes, with a method Prism can forward
(SKIPPED says what it cannot), goes through `prism proxy schema/openapi.yaml <server>`; Prism checks the
request and the server's answer against the document and reports each mismatch as a violation (in the
`sl-violations` header of each answer). A violation fails the run, except a request the document calls invalid
that the server refused with a 4xx too (counted as agreed: the document and the server say the same). Prism's
own failures fail it too, and so does an answer that did not come from the server, but for LIMITATIONS.
Exit 0: none; 1: some, each printed with the request; 2: a server or Prism did not start.

Usage: /usr/bin/python3 prism_proxy.py --server mock BINARY | --server drf SERVE_DRF.PY  --dataset FILE
           [--seed S]... [--requests N] [--document schema/openapi.yaml] [--server-arg ARG]...
           [--expect-violations]   (exit 0 only when there are some: the test of the test)
docs/schema.md ("The document as the tools read it") says what Prism cannot check and why.
"""

import argparse
import json
import os
import re
import socket
import sys
import time
from urllib.parse import unquote

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, "..", "..", ".."))
sys.path.insert(0, os.path.join(HERE, "..", "differential"))

import rawhttp  # noqa: E402
from random_requests import generate  # noqa: E402
from run_differential import USER  # noqa: E402
from servers import Server  # noqa: E402

# Prism (Node) answers in milliseconds, but ctest runs three tests at once on two cores: wait longer than the
# differential does before calling an answer missing.
rawhttp.READ_TIMEOUT = 30.0
PRISM = os.path.join(REPO, "node_modules", "@stoplight", "prism-cli", "dist", "index.js")
DEFAULT_SEEDS = (1,)
DEFAULT_REQUESTS = 400
METHODS = ("GET", "OPTIONS", "POST", "PUT", "PATCH", "DELETE", "TRACE")
# What Prism 5 cannot put to the test, so those requests are not sent through it (docs/schema.md lists each with
# an example): HEAD (it parses the empty body of a JSON answer and fails: "invalid json response body") and the
# slashless 301s (its proxy follows redirects, so it compares the slashed path's 200 with the 301 declared).
SKIPPED = {"HEAD": "Prism parses HEAD's empty body as JSON", "301": "Prism's proxy follows redirects",
           "%XX": "a path whose %XX escapes are not UTF-8 ends Prism (URIError: URI malformed)",
           "%2F": "Prism's router does not decode an encoded slash, which the WSGI server decodes before Django "
                  "routes (/edw/api/entities-images%2F is the list)",
           "bad JSON": "a body labelled application/json that is not JSON gets no answer from Prism (it hangs)",
           "multipart": "an upload whose file name holds a backslash ends Prism (parse-multipart-data reads the name "
                        "with JSON.parse: SyntaxError)"}
# Answers given without asking the server, as they must be: each is a limitation, counted, not a failure.
LIMITATIONS = {400: "raw non-ASCII bytes in the request line: Node's HTTP parser answers 400 before Prism"}
PRISM_FAILURE = re.compile(r"Request terminated with error: (.*)")


def document_paths(document):
    """The document's path templates as regexes over the decoded path, the slashless 301 routes left out."""
    paths = []
    with open(document, encoding="utf-8") as f:
        for line in f:
            match = re.match(r"^  (/[^:]*):\s*$", line)
            if match and match.group(1).endswith(("/", "}/")):
                template = re.escape(match.group(1)).replace(r"\{suffix\}", "[a-z0-9]+/?")
                paths.append(re.compile("^" + re.sub(r"\\\{[a-z_]+\\\}", "[^/.]+", template) + "$"))
    return paths


def described(request, paths):
    if request.method not in METHODS:
        return False
    if any(line.lower() == "content-type: application/json" for line in request.headers) and request.body:
        try:
            json.loads(request.body)
        except ValueError:
            return False
    if any(line.lower().startswith(b"content-disposition:") and b"\\" in line for line in request.body.split(b"\r\n")):
        return False
    if "%2f" in request.target.partition("?")[0].lower():
        return False
    try:
        path = unquote(request.target.partition("?")[0], errors="strict")
    except UnicodeDecodeError:
        return False
    return any(p.match(path) for p in paths)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_prism(document, upstream_port):
    port = free_port()
    prism = Server("prism", ["node", PRISM, "proxy", document, f"http://127.0.0.1:{upstream_port}", "-h",
                             "127.0.0.1", "-p", str(port), "--cors=false", "-v", "info"])
    # Prism says "Prism is listening on http://127.0.0.1:PORT"; servers.Server waits for "listening on ...".
    prism.start()
    return prism


def server_argv(kind, program, dataset, extra):
    if kind == "mock":
        return [program, "--port", "0", "--dataset", dataset, "--user", USER, "--quiet", "--threads", "2", *extra]
    return ["/usr/bin/python3", program, "--dataset", dataset, "--port", "0", "--user", USER, *extra]


def run_seed(args, seed, paths):
    requests = [r for r in generate(seed, args.requests) if described(r, paths)]
    server = Server(args.server[0], server_argv(args.server[0], args.server[1], args.dataset, args.server_arg))
    server.start()
    prism = None
    try:
        prism = start_prism(args.document, server.port)
        problems, forwarded, agreed, limited = [], 0, 0, {}
        for request in requests:
            seen = len(prism.stdout_lines)
            raw = rawhttp.build_request(request.method, request.target, f"127.0.0.1:{prism.port}", request.headers,
                                        request.body)
            answer = rawhttp.exchange(prism.port, raw, False)
            log = prism.stdout_lines[seen:] + [""]
            # The violations of this answer are in its own sl-violations header (Prism's log lags behind).
            found = [(v["location"][0], v["message"])
                     for header in answer.header("sl-violations") for v in json.loads(header)]
            refused = answer.status.startswith("4")
            agreed += sum(1 for where, _ in found if where == "request" and refused)
            found = [f"{where}: {text}" for where, text in found if not (where == "request" and refused)]
            found += [f"Prism failed: {m.group(1)}" for line in log for m in [PRISM_FAILURE.search(line)] if m]
            # Every answer of the server carries Allow or Referrer-Policy (Django's middleware); Prism's own do not.
            if answer.header("Allow") or answer.header("Referrer-Policy") or answer.header("Location"):
                forwarded += 1
            elif not answer.error and answer.status.isdigit() and int(answer.status) in LIMITATIONS:
                limited[int(answer.status)] = limited.get(int(answer.status), 0) + 1
            elif not answer.error:
                found.append(f"answered by Prism itself, not forwarded: {answer.status}")
            if answer.error:
                found.append(f"no answer through Prism: {answer.error}")
            if not prism.alive():
                raise RuntimeError(f"Prism stopped at {request.method} {request.target!r}:\n" + prism.output_tail())
            for text in found:
                problems.append(f"{request.family}: {request.method} {request.target!r} -> {answer.status}: {text}")
        print(f"prism: seed {seed}: {agreed} request violations agreed (the server refused those requests with a "
              "4xx); answered by Prism itself as it must: "
              + (", ".join(f"{n} ({LIMITATIONS[k]})" for k, n in sorted(limited.items())) or "none"))
        return len(requests), forwarded, problems
    finally:
        if prism:
            prism.stop()
        server.stop()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--server", nargs=2, metavar=("KIND", "PROGRAM"), required=True)
    parser.add_argument("--server-arg", action="append", default=[])
    parser.add_argument("--dataset", required=True)
    parser.add_argument("--document", default=os.path.join(REPO, "schema", "openapi.yaml"))
    parser.add_argument("--seed", type=int, action="append")
    parser.add_argument("--requests", type=int, default=DEFAULT_REQUESTS)
    parser.add_argument("--expect-violations", action="store_true",
                        help="exit 0 only when Prism finds violations (a server that breaks the document)")
    args = parser.parse_args()
    if args.server[0] not in ("mock", "drf"):
        parser.error("--server KIND is mock or drf")
    paths = document_paths(args.document)
    total_problems = 0
    for seed in args.seed or DEFAULT_SEEDS:
        started = time.monotonic()
        try:
            sent, forwarded, problems = run_seed(args, seed, paths)
        except RuntimeError as error:
            print(f"prism: {error}", file=sys.stderr)
            return 2
        for text in problems[:40]:
            print("  " + text)
        print(f"prism: seed {seed}: {sent} of {args.requests} generated requests described by the document sent "
              f"through Prism to {args.server[0]}, {forwarded} forwarded, {len(problems)} violations "
              f"({time.monotonic() - started:.1f} s)")
        total_problems += len(problems)
    print("prism: skipped, as Prism cannot check them: " + "; ".join(f"{k}: {v}" for k, v in SKIPPED.items()))
    if args.expect_violations:
        print(f"prism: {'caught' if total_problems else 'did NOT catch'} the server that breaks the document")
        return 0 if total_problems else 1
    return 1 if total_problems else 0


if __name__ == "__main__":
    sys.exit(main())
