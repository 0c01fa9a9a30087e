#!/usr/bin/python3
"""record -> serve -> check -> diff, end to end: a recording of the mock served by a second mock passes
the suite and diffs clean; known edits of a recording are reported exactly, and nothing else; a
recording killed midway is resumed into the same bytes as an uninterrupted one; partial or altered
snapshots are refused; the committed fixture snapshot is what the mock serves."""

import argparse
import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from servers import run, serve  # noqa: E402

RECORDS = 2000
SEED = 5
failures = []


def check(condition, what, detail=""):
    print("%s %s" % ("PASS" if condition else "FAIL", what))
    if not condition:
        failures.append(what)
        if detail:
            print(detail)


def reseal(snapshot):
    """Rewrites the manifest's sizes and hashes after a test edited the files, as a person could."""
    path = os.path.join(snapshot, "manifest.json")
    with open(path, encoding="utf-8") as f:
        manifest = json.load(f)
    for entry in manifest["files"]:
        with open(os.path.join(snapshot, entry["name"]), "rb") as f:
            data = f.read()
        entry["bytes"] = len(data)
        entry["sha256"] = hashlib.sha256(data).hexdigest()
    with open(path, "w", encoding="utf-8") as f:
        json.dump(manifest, f, indent=2)


def edit_records(snapshot, change):
    """change(list of dicts, kept in key order) -> list; rewrites records.jsonl compactly."""
    path = os.path.join(snapshot, "records.jsonl")
    with open(path, encoding="utf-8") as f:
        records = [json.loads(line) for line in f]
    records = change(records)
    with open(path, "w", encoding="utf-8") as f:
        for r in records:
            f.write(json.dumps(r, ensure_ascii=False, separators=(",", ":")) + "\n")
    reseal(snapshot)


def diff_json(contract, tmp, before, after_args, extra=()):
    out = os.path.join(tmp, "diff.json")
    junit = os.path.join(tmp, "diff.xml")
    code, stdout, stderr = run([contract, "diff", "--snapshot", before, "--json", out, "--junit", junit,
                                "--no-progress"] + list(after_args) + list(extra))
    report = None
    if os.path.exists(out):
        with open(out, encoding="utf-8") as f:
            report = json.load(f)
        os.remove(out)
    return code, stdout + stderr, report, junit


def summary(report):
    """What a report says changed, as comparable data."""
    return {
        "count": report["count"]["before"] != report["count"]["after"],
        "added": [r["id"] for r in report["added"]["listed"]],
        "removed": [r["id"] for r in report["removed"]["listed"]],
        "changed": [(c["id"], [(f["field"], f.get("before", "<absent>"), f.get("after", "<absent>"))
                               for f in c["fields"]]) for c in report["changed"]["listed"]],
        "totals": (report["added"]["total"], report["removed"]["total"], report["changed"]["total"]),
        "fields_added": report["schema_drift"]["fields_added"],
        "fields_removed": report["schema_drift"]["fields_removed"],
        "types_changed": [(t["field"], t["before"], t["after"]) for t in report["schema_drift"]["types_changed"]],
        "headers": [(h["name"], h.get("before"), h.get("after")) for h in report["headers"]],
    }


NOTHING = {"count": False, "added": [], "removed": [], "changed": [], "totals": (0, 0, 0), "fields_added": [],
           "fields_removed": [], "types_changed": [], "headers": []}


def expect(**changes):
    out = dict(NOTHING)
    out.update(changes)
    return out


def junit_failures(path):
    tree = ET.parse(path)
    return {case.get("name"): len(case.findall("failure")) for case in tree.iter("testcase")}


def edits_are_reported_exactly(contract, tmp, snap):
    with open(os.path.join(snap, "records.jsonl"), encoding="utf-8") as f:
        first, second, third = (json.loads(next(f)) for _ in range(3))
    last_id = None
    with open(os.path.join(snap, "records.jsonl"), encoding="utf-8") as f:
        for line in f:
            last_id = json.loads(line)["id"]

    def added(records):
        extra = dict(records[-1])
        extra["id"] = last_id + 1000
        return records + [extra]

    def altered(records):
        records[1]["author"] = "Someone Else"
        return records

    def renamed(records):
        return [{("alt_text" if k == "alt" else k): v for k, v in r.items()} for r in records]

    def retyped(records):
        records[2]["file_size"] = str(records[2]["file_size"])
        return records

    cases = [
        ("a record added", added, expect(added=[last_id + 1000], totals=(1, 0, 0))),
        ("a record removed", lambda rs: rs[:1] + rs[2:], expect(removed=[second["id"]], totals=(0, 1, 0))),
        ("a field altered", altered,
         expect(changed=[(second["id"], [("author", second["author"], "Someone Else")])], totals=(0, 0, 1))),
        ("a field renamed", renamed, expect(fields_added=["alt_text"], fields_removed=["alt"])),
        ("a type changed", retyped,
         expect(changed=[(third["id"], [("file_size", third["file_size"], str(third["file_size"]))])],
                totals=(0, 0, 1), types_changed=[("file_size", "integer", "integer|string")])),
    ]
    for name, change, expected in cases:
        edited = os.path.join(tmp, "edited")
        shutil.rmtree(edited, ignore_errors=True)
        shutil.copytree(snap, edited)
        edit_records(edited, change)
        code, output, report, junit = diff_json(contract, tmp, snap, ["--against", edited])
        got = summary(report) if report else None
        check(code == 1 and got == expected, "diff reports exactly: " + name,
              "exit %d\nexpected %s\ngot      %s\n%s" % (code, expected, got, output))
        if name == "a field altered":
            failing = {k for k, v in junit_failures(junit).items() if v}
            check(failing == {"records_changed"}, "the JUnit report fails records_changed only", str(failing))
            code, output, _, _ = diff_json(contract, tmp, snap, ["--against", edited], ["--ignore", "author"])
            check(code == 0 and "no changes" in output, "--ignore author hides that change", output)

    edited = os.path.join(tmp, "edited")
    shutil.rmtree(edited)
    shutil.copytree(snap, edited)
    head = os.path.join(edited, "pages", "page-1.head.json")
    with open(head, encoding="utf-8") as f:
        page = json.load(f)
    before = [v for n, v in page["headers"] if n.lower() == "vary"][0]
    page["headers"] = [[n, "Accept, Cookie" if n.lower() == "vary" else v] for n, v in page["headers"]]
    with open(head, "w", encoding="utf-8") as f:
        json.dump(page, f)
    reseal(edited)
    code, output, report, _ = diff_json(contract, tmp, snap, ["--against", edited])
    check(code == 1 and summary(report) == expect(headers=[("vary", before, "Accept, Cookie")]),
          "diff reports exactly: a header changed", output)

    shutil.rmtree(edited)
    shutil.copytree(snap, edited)
    with open(os.path.join(edited, "records.jsonl"), "a", encoding="utf-8") as f:
        f.write("\n")  # one byte more than the manifest says
    code, output, _, _ = diff_json(contract, tmp, snap, ["--against", edited])
    check(code == 2 and "does not match the manifest" in output, "an altered snapshot is refused", output)


def resume_gives_the_same_bytes(contract, mock_url, tmp, reference):
    out = os.path.join(tmp, "resumed")
    command = [contract, "record", "--base-url", mock_url, "--out", out, "--walk-limit", "50", "--no-progress",
               "--concurrency", "1"]
    proc = subprocess.Popen(command + ["--rate", "15"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    progress = os.path.join(out + ".partial", "progress.json")
    deadline = time.monotonic() + 60
    recorded = 0
    while time.monotonic() < deadline and recorded < 300:
        try:
            with open(progress, encoding="utf-8") as f:
                recorded = json.load(f)["records"]
        except (OSError, ValueError, KeyError):
            pass
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    check(300 <= recorded < RECORDS and not os.path.exists(out) and os.path.isdir(out + ".partial"),
          "a recording killed midway leaves only OUT.partial (%d records in)" % recorded)
    code, output, _, _ = diff_json(contract, tmp, out + ".partial", ["--against", reference])
    check(code == 2 and "not complete" in output, "a partial recording is never taken for a snapshot", output)
    code, stdout, stderr = run(command)
    check(code == 0 and "resumed after" in stdout, "the same command resumes it", stdout + stderr)
    same = True
    for name in ["records.jsonl", "pages/page-1.json", "pages/page-2.json"]:
        with open(os.path.join(out, name), "rb") as a, open(os.path.join(reference, name), "rb") as b:
            same = same and a.read() == b.read()
    check(same and not os.path.exists(out + ".partial"),
          "the resumed recording equals an uninterrupted one, byte for byte")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--contract", required=True)
    parser.add_argument("--mock", required=True)
    parser.add_argument("--fixture", required=True, help="fixtures/snapshots/mock-seed-7-60")
    args = parser.parse_args()
    contract = args.contract

    with tempfile.TemporaryDirectory(prefix="entimg-snapshot-") as tmp:
        snap = os.path.join(tmp, "snap")
        with serve([args.mock, "--port", "0", "--records", str(RECORDS), "--seed", str(SEED)]) as url:
            code, stdout, stderr = run([contract, "record", "--base-url", url, "--out", snap, "--no-progress"])
            with open(os.path.join(snap, "manifest.json"), encoding="utf-8") as f:
                manifest = json.load(f)
            with open(os.path.join(snap, "records.jsonl"), encoding="utf-8") as f:
                lines = f.read().splitlines()
            check(code == 0 and manifest["complete"] and manifest["records"] == RECORDS == len(lines)
                  and manifest["count"] == RECORDS, "record writes a complete snapshot of the mock",
                  stdout + stderr)
            code, stdout, stderr = run([contract, "record", "--base-url", url, "--out", snap, "--no-progress"])
            check(code == 2 and "already exists" in stderr, "record refuses to overwrite without --force", stderr)
            code, output, _, _ = diff_json(contract, tmp, snap, ["--base-url", url])
            check(code == 0 and "no changes" in output, "the deployment diffs clean against its recording", output)
            resume_gives_the_same_bytes(contract, url, tmp, snap)

        with serve([args.mock, "--port", "0", "--dataset", snap]) as url:
            code, stdout, stderr = run([contract, "--base-url", url, "--no-progress", "--seed", "1"])
            check(code == 0, "the suite passes against a mock serving the recording", stdout + stderr)
            code, stdout, stderr = run([contract, "--base-url", url, "--no-progress", "--mode", "full"])
            check(code == 0, "a full walk passes too", stdout + stderr)
            code, output, report, _ = diff_json(contract, tmp, snap, ["--base-url", url])
            check(code == 0 and "no changes" in output,
                  "the served recording diffs clean (image hosts differ: compared as paths)", output)
            code, output, report, _ = diff_json(contract, tmp, snap, ["--base-url", url], ["--strict-host"])
            check(code == 1 and report["changed"]["total"] == RECORDS
                  and {f["field"] for c in report["changed"]["listed"] for f in c["fields"]} == {"image"},
                  "--strict-host sees every image URL's other port", output[-2000:])

        edits_are_reported_exactly(contract, tmp, snap)

        partial = os.path.join(tmp, "partial")
        shutil.copytree(snap, partial)
        with open(os.path.join(partial, "manifest.json"), encoding="utf-8") as f:
            manifest = json.load(f)
        manifest["complete"] = False
        with open(os.path.join(partial, "manifest.json"), "w", encoding="utf-8") as f:
            json.dump(manifest, f)
        code, stdout, stderr = run([args.mock, "--port", "0", "--dataset", partial], timeout=30)
        check(code != 0 and "not complete" in stdout + stderr, "the mock refuses a partial snapshot", stdout + stderr)

    with serve([args.mock, "--port", "0", "--records", "60", "--seed", "7"]) as url:
        code, output, _, _ = diff_json(contract, tempfile.gettempdir(), args.fixture, ["--base-url", url])
        check(code == 0 and "no changes" in output,
              "the committed fixture snapshot is what the mock serves (--records 60 --seed 7)", output)

    print("%d failed" % len(failures))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
