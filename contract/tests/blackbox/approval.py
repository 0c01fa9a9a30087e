#!/usr/bin/python3
"""Approval test of every report format (console, GitHub annotations, JUnit, JSON, HTML, Markdown) against
fixtures/golden/.

Runs entities-images-contract against the mock (all rules pass) and against a broken variant (one
rule fails), normalises what changes from run to run (ports, durations, timestamps, host names,
source paths, the version, the tool's and the report files' paths) and compares with the approved files. --update rewrites the approved files.
"""

import argparse
import difflib
import os
import re
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from servers import fail, run, serve  # noqa: E402

NORMALISE = [
    (re.compile(r"127\.0\.0\.1:\d+"), "127.0.0.1:{PORT}"),
    (re.compile(r"\d+\.\d s \(\d+ records/s\)"), "{SECONDS} s ({RATE} records/s)"),
    (re.compile(r"\d+\.\d s in all"), "{SECONDS} s in all"),
    (re.compile(r'"walk_duration_ms": \d+'), '"walk_duration_ms": {MS}'),
    (re.compile(r'"started_at": "[^"]*"'), '"started_at": "{TIME}"'),
    (re.compile(r'"duration_ms": \d+'), '"duration_ms": {MS}'),
    (re.compile(r'"(start|stop|duration)": \d+'), r'"\1": {MS}'),
    (re.compile(r'"timestamp": "[^"]*"'), '"timestamp": "{TIME}"'),
    (re.compile(r'timestamp="[^"]*"'), 'timestamp="{TIME}"'),
    (re.compile(r'time="[^"]*"'), 'time="{SECONDS}"'),
    (re.compile(r'hostname="[^"]*"'), 'hostname="{HOST}"'),
    (re.compile(r"\S*junit_report\.cpp:\d+"), "{SOURCE}"),
    # The version comes from CMake's project(); a release does not change what the reports say.
    (re.compile(r"entities-images-contract \d+\.\d+\.\d+"), "entities-images-contract {VERSION}"),
    (re.compile(r'"version": "\d+\.\d+\.\d+"'), '"version": "{VERSION}"'),
    (re.compile(r'name="version" value="\d+\.\d+\.\d+"'), 'name="version" value="{VERSION}"'),
    (re.compile(r"started \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"), "started {TIME}"),
]

# Each report file format: its option and the extension of its approved files.
FORMATS = [("junit", "xml"), ("json", "json"), ("ctrf", "json"), ("html", "html"), ("markdown", "md")]


def normalise(text, paths=()):
    """paths: (literal, placeholder) pairs replaced first, e.g. the tool's own path in a command line."""
    for literal, placeholder in paths:
        text = text.replace(literal, placeholder)
    for pattern, replacement in NORMALISE:
        text = pattern.sub(replacement, text)
    return text


def compare(golden_dir, name, actual, update):
    path = os.path.join(golden_dir, name)
    if update:
        with open(path, "w", encoding="utf-8") as f:
            f.write(actual)
        print("updated " + path)
        return True
    if not os.path.exists(path):
        print("missing approved file %s (run with --update and review it)" % path)
        return False
    with open(path, encoding="utf-8") as f:
        approved = f.read()
    if approved == actual:
        print("PASS  " + name)
        return True
    print("FAIL  %s differs from the approved file:" % name)
    sys.stdout.writelines(difflib.unified_diff(approved.splitlines(True), actual.splitlines(True),
                                               "approved/" + name, "actual/" + name))
    return False


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--contract", required=True)
    parser.add_argument("--mock", required=True)
    parser.add_argument("--broken", required=True)
    parser.add_argument("--golden", required=True)
    parser.add_argument("--update", action="store_true")
    parser.add_argument("--keep", help="write the reports into this folder and keep them (for other tests)")
    args = parser.parse_args()

    ok = True
    cases = [
        ("pass", [args.mock, "--port", "0", "--records", "300", "--seed", "7"], 0),
        ("fail", [args.broken, "--variant", "next-offset-off-by-one", "--port", "0", "--records", "300",
                  "--seed", "7"], 1),
    ]
    compared = 0
    with tempfile.TemporaryDirectory() as tmp:
        keep = args.keep or tmp
        os.makedirs(keep, exist_ok=True)
        paths = [(args.contract, "{CONTRACT}"), (keep, "{TMP}")]
        for name, server, expected_exit in cases:
            files = {option: os.path.join(keep, "%s-%s.%s" % (option, name, ext)) for option, ext in FORMATS}
            with serve(server) as url:
                command = [args.contract, "--base-url", url, "--mode", "full", "--seed", "42", "--no-progress"]
                for option, path in files.items():
                    command += ["--" + option, path]
                # As in GitHub Actions: the workflow commands (lines starting "::") follow the console report.
                code, out, err = run(command, env=dict(os.environ, GITHUB_ACTIONS="true"))
            if code != expected_exit:
                fail("%s: exit %d, expected %d\n%s\n%s" % (name, code, expected_exit, out, err))
            lines = out.splitlines(True)
            console = "".join(line for line in lines if not line.startswith("::"))
            annotations = "".join(line for line in lines if line.startswith("::"))
            ok &= compare(args.golden, "console-%s.txt" % name, normalise(console), args.update)
            ok &= compare(args.golden, "annotations-%s.txt" % name, normalise(annotations), args.update)
            compared += 2
            for option, ext in FORMATS:
                with open(files[option], encoding="utf-8") as f:
                    text = f.read()
                ok &= compare(args.golden, "%s-%s.%s" % (option, name, ext), normalise(text, paths), args.update)
                compared += 1
    print("%d passed, %d failed" % ((compared, 0) if ok else (0, 1)))
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
