#!/usr/bin/python3
"""Specmatic's generated contract tests (npm `specmatic`, its bundled jar on Debian's JRE) against a server.

Starts the server (the mock, or the DRF stand-in) on the differential's dataset, runs `specmatic test --lenient`
on schema/openapi.yaml with at most MAX_TEST_REQUEST_COMBINATIONS requests a scenario, reads its JUnit report and
sorts each failure into one of LIMITATIONS (what Specmatic cannot know or do, each with an example in
docs/schema.md) or a failure the document causes. Exit 0: no failure but limitations; 1: some; 2: a server or
Specmatic did not run.

Usage: /usr/bin/python3 specmatic_tests.py --server mock BINARY | --server drf SERVE_DRF.PY --dataset FILE
           [--combinations N] [--document schema/openapi.yaml] [--show N]
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from urllib.parse import parse_qsl, unquote

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, "..", "..", ".."))
sys.path.insert(0, os.path.join(HERE, "..", "differential"))

from run_differential import USER  # noqa: E402
from servers import Server  # noqa: E402

JAR = os.path.join(REPO, "node_modules", "specmatic", "specmatic.jar")
# POST's 201 needs a user's credentials and a real picture, neither of which a generated request has.
FILTER = "!(METHOD='POST' && STATUS='201')"
DEFAULT_COMBINATIONS = 2


def requests_by_scenario(log_text):
    """Specmatic's log, each request it sent as (method, path, query pairs, the answer's status or None), listed
    under its scenario's name."""
    found = {}
    for block in log_text.split("\n--------------------\n"):
        sent = re.search(r"Request to \S+ at [^\n]*\n    ([A-Z]+) ([^\n]*)", block)
        scenario = re.search(r"\nScenario: (.*) has (?:FAILED|SUCCEEDED)", block)
        answered = re.search(r"\n  Response at [^\n]*\n    (\d{3})\b", block)
        if sent and scenario:
            path, _, query = sent.group(2).partition("?")
            found.setdefault(scenario.group(1).strip(), []).append(
                (sent.group(1), unquote(path), parse_qsl(query, keep_blank_values=True),
                 int(answered.group(1)) if answered else None))
    return found


def request_of(requests, text):
    """The request a failure is about, among its scenario's (Specmatic sends up to --combinations a scenario, all
    of one name, and its report need not list them in the log's order): the first whose answer has the status
    the failure names, else the first not yet taken. Taken off the list."""
    if not requests:
        return None
    status = re.search(r"response contained status (\d{3})", text)
    at = next((i for i, r in enumerate(requests) if status and r[3] == int(status.group(1))), 0)
    return requests.pop(at) if len(requests) > 1 else requests[at]


def _off_template(text, request):
    """Whether the path sent does not have the shape of the scenario's template: a generated value with '#' or '?'
    cut it there (the rest went as a fragment or a query)."""
    api = re.search(r"API: [A-Z]+ (\S+) ->", text)
    if request is None or api is None:
        return False
    shape = re.sub(r"\\\(suffix:string\\\)", "(json|api)/?", re.escape(api.group(1)))
    shape = re.sub(r"\\\([a-z_]+:string\\\)", "[^/]+", shape)
    return re.fullmatch(shape, request[1]) is None


def _is_number(text):
    return re.fullmatch(r"\s*[+-]?(\d+\.?\d*|\.\d+)\s*", text) is not None


def _non_number_entity(request):
    _, path, query, _ = request
    nested = re.match(r"/edw/api/entities/([^/]*)/images/", path)
    values = [v for k, v in query if k == "entity" and v.strip()] + ([nested.group(1)] if nested else [])
    return any(not _is_number(v) for v in values)


# (name, what Specmatic cannot do, test of a failure's text and request). docs/schema.md lists each with an example.
LIMITATIONS = [
    ("path-not-encoded", "Specmatic puts a generated path value (any text but '/' and '.') in the URL without "
     "percent-encoding it: it cannot send the request (Illegal character in path or fragment), sends a request "
     "line with raw spaces or non-ASCII characters, or a '#' or '?' in the value cuts the path there (a path cut "
     "before its slash gets Django's 301)",
     lambda text, request: re.search(r"Illegal character in (path|fragment|query)", text) is not None
     or "response contained status 301" in text or _off_template(text, request) or (
         request is not None and re.search(r"[^\x21-\x7e]", request[1]) is not None)),
    ("message-format-crash", "Specmatic crashes formatting its own failure message when it holds '%' "
     "(java.util.UnknownFormatConversionException, MissingFormatArgumentException)",
     lambda text, request: re.search(r"java\.util\.\w*Format\w*Exception", text) is not None),
    ("value-decides-status", "a generated entity (or nested entity_pk) is not a number: the service answers the "
     "400 the document declares for it, but Specmatic expects the 200 of its scenario (it reads schemas, not the "
     "parameter's description)",
     lambda text, request: request is not None and "expected status 200 but response contained status 400" in text
     and _non_number_entity(request)),
    ("format-names-no-renderer", "a generated format given twice ends with a value that names no renderer: "
     "the service answers the 404 the document declares for it (DRF reads the last value), but Specmatic expects "
     "the 200 of its scenario",
     lambda text, request: request is not None and "expected status 200 but response contained status 404" in text
     and ([v for k, v in request[2] if k == "format"] or ["json"])[-1] not in ("json", "api", "")),
    ("unknown-key", "a generated pk names no record: the service answers the 404 the document declares, but "
     "Specmatic expects the 200 of its scenario (no schema can say which keys exist)",
     lambda text, request: request is not None and "expected status 200 but response contained status 404" in text
     and re.search(r"/images/[^/]+/$|/entities-images/[^/]+(/|\.[a-z]+/?)$", request[1]) is not None),
    ("representation-not-asked", "Specmatic expects one of an answer's two declared representations (JSON, or "
     "the browsable HTML page) whatever its request selects (format=api, the .api suffix or an HTML Accept give the "
     "page): the service answers the one the request asks for, as the document says",
     lambda text, request: re.search(r"expected (text/html|application/json)[^\n]* but response contained "
                                     r"(text/html|application/json)", text) is not None),
]


def classify(text, request):
    for name, _, applies in LIMITATIONS:
        if applies(text, request):
            return name
    return None


def server_argv(kind, program, dataset):
    if kind == "mock":
        return [program, "--port", "0", "--dataset", dataset, "--user", USER, "--quiet", "--threads", "2"]
    return ["/usr/bin/python3", program, "--dataset", dataset, "--port", "0", "--user", USER]


def run_specmatic(args, port, reports):
    env = dict(os.environ, MAX_TEST_REQUEST_COMBINATIONS=str(args.combinations))
    argv = ["java", "-Xmx1g", "-jar", JAR, "test", "--lenient", f"--testBaseURL=http://127.0.0.1:{port}",
            f"--junitReportDir={reports}", f"--filter={FILTER}", args.document]
    started = time.monotonic()
    with open(os.path.join(reports, "specmatic.log"), "wb") as log:
        code = subprocess.run(argv, cwd=reports, env=env, stdin=subprocess.DEVNULL, stdout=log,
                              stderr=subprocess.STDOUT, timeout=args.timeout).returncode
    return code, time.monotonic() - started


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--server", nargs=2, metavar=("KIND", "PROGRAM"), required=True)
    parser.add_argument("--dataset", required=True)
    parser.add_argument("--document", default=os.path.join(REPO, "schema", "openapi.yaml"))
    parser.add_argument("--combinations", type=int, default=DEFAULT_COMBINATIONS)
    parser.add_argument("--timeout", type=float, default=240)
    parser.add_argument("--show", type=int, default=10, help="failures the document causes to print in full")
    args = parser.parse_args()
    server = Server(args.server[0], server_argv(args.server[0], args.server[1], args.dataset))
    reports = tempfile.mkdtemp(prefix="entimg-specmatic-")
    try:
        server.start()
        code, seconds = run_specmatic(args, server.port, reports)
        report = os.path.join(reports, "TEST-junit-jupiter.xml")
        if not os.path.exists(report):
            print(f"specmatic: no JUnit report (exit {code}); its log ends:")
            print(open(os.path.join(reports, "specmatic.log"), encoding="utf-8", errors="replace").read()[-3000:])
            return 2
        tests, caused, limited, examples = 0, [], {}, {}
        with open(os.path.join(reports, "specmatic.log"), encoding="utf-8", errors="replace") as log:
            sent = requests_by_scenario(log.read())
        for case in ET.parse(report).getroot().iter("testcase"):
            tests += 1
            failure = case.find("failure") if case.find("failure") is not None else case.find("error")
            if failure is None:
                continue
            text = (failure.get("message") or "") + "\n" + (failure.text or "")
            name = case.get("name", "").partition("Scenario: ")[2].strip()
            request = request_of(sent.get(name), text)
            kind = classify(text, request)
            if kind is None:
                shown = f"{request[0]} {request[1]} {request[2]}" if request else "(request not in the log)"
                caused.append(case.get("name", "") + "\nsent: " + shown + "\n" + text[:1200])
            else:
                limited[kind] = limited.get(kind, 0) + 1
                examples.setdefault(kind, case.get("name", "")[:200])
    except (RuntimeError, subprocess.TimeoutExpired) as error:
        print(f"specmatic: {error}", file=sys.stderr)
        return 2
    finally:
        server.stop()
        shutil.rmtree(reports, ignore_errors=True)
    for text in caused[:args.show]:
        print("FAIL " + text + "\n")
    for name, what, _ in LIMITATIONS:
        if name in limited:
            print(f"specmatic: limitation {name}: {limited[name]} ({what}); e.g. {examples[name]}")
    print(f"specmatic: {tests} generated tests against {args.server[0]} in {seconds:.1f} s (at most "
          f"{args.combinations} requests a scenario, POST's 201 left out), {sum(limited.values())} failures from "
          f"Specmatic's limitations, {len(caused)} caused by the document")
    return 1 if caused else 0


if __name__ == "__main__":
    sys.exit(main())
