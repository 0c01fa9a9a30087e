#!/usr/bin/python3
"""The files the mock reads, as a black box (issue 36, item 2): --dataset /dev/zero grew to 23.4 GB and a
FIFO blocked `open` for ever, both deaf to SIGTERM. Now only regular files within --max-file-bytes are read
(--dataset, a snapshot's files, --state's files; --config within 1 MiB), each refusal is one line naming the
file, and a stop signal ends a load at once. No wall-clock bound (issue 43): each refusal must end the mock by
itself (a hang guard kills it after HANG_GUARD seconds, far above need: the broken behaviours never end), and the
stop signal is sent mid-way through hashing 1 TiB, which no machine finishes within the guard.

`npx entities-images-mock` reads its --dataset and --config files through Node the same way (--npx APP_DIR: the
cases that apply to it, with the native mock's messages and exit codes; before, it read /dev/zero to 5.9 GB).

Usage: file_bounds.py --mock PATH | --npx APP_DIR. Exit 0 when every case holds, 1 naming the ones that do not.
"""

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time

FAILED = []


HANG_GUARD = 30  # seconds: far above what a refusal takes on a busy machine; a mock that reads on never ends


def run(mock, args, seconds=HANG_GUARD):
    """Runs the mock (a program, or a command as a list) to its end (killed after `seconds`); returns (exit code
    or None, stderr, seconds)."""
    started = time.monotonic()
    process = subprocess.Popen((mock if isinstance(mock, list) else [mock]) + ["--port", "0"] + args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE)
    try:
        _, err = process.communicate(timeout=seconds)
        return process.returncode, err.decode("utf-8", "replace"), time.monotonic() - started
    except subprocess.TimeoutExpired:
        process.kill()
        _, err = process.communicate()
        return None, err.decode("utf-8", "replace"), time.monotonic() - started


def expect(name, result, code, text):
    rc, err, seconds = result
    lines = [line for line in err.splitlines() if line and not line.startswith("Run with --help")]
    problems = []
    if rc != code:
        problems.append(f"exit {rc} (expected {code})")
    if text not in err:
        problems.append(f"no {text!r} on stderr")
    if len(lines) != 1:
        problems.append(f"{len(lines)} lines on stderr (expected one)")
    if rc is None:
        problems.append(f"still running after {seconds:.0f} s: killed")
    print(f"{'ok  ' if not problems else 'FAIL'} {name}: exit {rc} in {seconds:.2f} s: {err.strip()[:200]}"
          + ("" if not problems else " -- " + "; ".join(problems)))
    if problems:
        FAILED.append(name)


def snapshot(directory, records_bytes):
    """A snapshot directory whose manifest lists records.jsonl with `records_bytes` (its hash is wrong: the
    mock finds that out only after reading the whole file)."""
    os.makedirs(directory)
    manifest = {"format": "entities-images-snapshot", "version": 1, "complete": True, "base_url": "http://x",
                "collection_path": "/edw/api/entities-images/", "recorded_at": "2026-11-27T00:00:00Z",
                "tool": "test", "count": 0, "records": 0, "limit": 12,
                "files": [{"name": "records.jsonl", "bytes": records_bytes, "sha256": "0" * 64}]}
    with open(os.path.join(directory, "manifest.json"), "w") as out:
        json.dump(manifest, out)
    return os.path.join(directory, "records.jsonl")


def read_bytes(pid):
    """The bytes a process has read so far (rchar of /proc/PID/io), 0 when gone."""
    try:
        with open(f"/proc/{pid}/io") as io:
            return next(int(line.split()[1]) for line in io if line.startswith("rchar:"))
    except (OSError, StopIteration):
        return 0


def stop_while_loading(mock, tmp):
    """SIGTERM once the hashing of a 1 TiB (sparse) snapshot file is under way (64 MiB read): the mock ends at
    once, not after the rest of the file (minutes at any hashing speed)."""
    records = snapshot(os.path.join(tmp, "huge"), 1 << 40)
    with open(records, "wb") as out:
        out.truncate(1 << 40)
    process = subprocess.Popen([mock, "--port", "0", "--dataset", os.path.dirname(records),
                                "--max-file-bytes", str(1 << 40)], stdin=subprocess.DEVNULL,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + HANG_GUARD
    while time.monotonic() < deadline and process.poll() is None and read_bytes(process.pid) < (64 << 20):
        time.sleep(0.05)
    running = process.poll() is None
    started = time.monotonic()
    process.send_signal(signal.SIGTERM)
    try:
        _, err = process.communicate(timeout=HANG_GUARD)
        rc = process.returncode
    except subprocess.TimeoutExpired:
        process.kill()
        _, err = process.communicate()
        rc = None
    name = "SIGTERM while a snapshot of 1 TiB is hashed"
    if not running:
        print(f"FAIL {name}: the mock ended before the signal (exit {process.returncode}): {err.decode()[:200]}")
        FAILED.append(name)
        return
    expect(name, (rc, err.decode("utf-8", "replace"), time.monotonic() - started), 0, "stopped while loading")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mock")
    parser.add_argument("--npx", help="an app folder with entities-images-mock installed: its npx server instead")
    args = parser.parse_args()
    npx = args.npx is not None
    mock = (["node", os.path.join(args.npx, "node_modules", "entities-images-mock", "bin", "entities-images-mock.js")]
            if npx else args.mock)
    with tempfile.TemporaryDirectory(prefix="entimg-file-bounds-") as tmp:
        fifo = os.path.join(tmp, "fifo")
        os.mkfifo(fifo)
        big = os.path.join(tmp, "big.jsonl")
        with open(big, "w") as out:
            out.write("\n" * 2048)
        expect("--dataset /dev/zero", run(mock, ["--dataset", "/dev/zero"]), 1,
               "/dev/zero: not a regular file (a character device)")
        expect("--dataset FIFO", run(mock, ["--dataset", fifo]), 1, "fifo: not a regular file (a FIFO)")
        expect("--dataset over --max-file-bytes", run(mock, ["--dataset", big, "--max-file-bytes", "2047"]), 1,
               "big.jsonl: 2048 bytes, over the limit of 2047 (--max-file-bytes)")
        # Issue 43: a field name from a file (a snapshot recorded from a hostile server) reached the terminal raw:
        # ESC, BEL, CR, LF, C1 and bidi controls must come out as escapes, on the one line of the error.
        hostile = os.path.join(tmp, "hostile.jsonl")
        with open(hostile, "w") as out:
            out.write(json.dumps({"id": 1, "\x1b]0;pwned\x07\r\n\x9b2J\u202e": 1}) + "\n")
        result = run(mock, ["--dataset", hostile])
        expect("a dataset's field name with control and bidi characters", result, 1,
               'unknown field "\\x1b]0;pwned\\x07\\x0d\\x0a\\u009b2J\\u202e"')
        if any(c in result[1] for c in "\x1b\x07\r\x9b\u202e"):
            print("FAIL a control or bidi character of the dataset reached stderr raw")
            FAILED.append("dataset field name escaped")
        expect("--config /dev/zero", run(mock, ["--config", "/dev/zero"]), 2,
               "option --config needs a regular file, got '/dev/zero' (a character device)")
        expect("--config FIFO", run(mock, ["--config", fifo]), 2, "(a FIFO)")
        huge_config = os.path.join(tmp, "config.json")
        with open(huge_config, "w") as out:
            out.write("{}" + " " * (1 << 20))
        expect("--config over 1 MiB", run(mock, ["--config", huge_config]), 2, "needs a file of at most 1048576 bytes")
        if npx:  # snapshots and --state are the native mock's only
            return finish()
        records = snapshot(os.path.join(tmp, "snapshot"), 0)
        os.mkfifo(records)
        expect("a snapshot's records.jsonl a FIFO", run(mock, ["--dataset", os.path.dirname(records)]), 1,
               "records.jsonl is not a regular file")
        records = snapshot(os.path.join(tmp, "large"), 4096)
        with open(records, "wb") as out:
            out.truncate(4096)
        expect("a snapshot's records.jsonl over --max-file-bytes",
               run(mock, ["--dataset", os.path.dirname(records), "--max-file-bytes", "4095"]), 1,
               "records.jsonl: 4096 bytes, over the limit of 4095 (--max-file-bytes)")
        state = os.path.join(tmp, "state")
        os.makedirs(os.path.join(state, "media"))
        os.mkfifo(os.path.join(state, "records.jsonl"))
        expect("--state DIR whose records.jsonl is a FIFO", run(mock, ["--records", "10", "--state", state]), 1,
               "records.jsonl: not a regular file (a FIFO)")
        # Issue 43: a records.jsonl link planted in the state directory had its target truncated. A canary
        # file of this test's own stands for the file an attacker would aim at.
        canary = os.path.join(tmp, "canary")
        with open(canary, "w") as out:
            out.write("canary: not a record line\n")
        linked = os.path.join(tmp, "linked-state")
        os.makedirs(os.path.join(linked, "media"))
        os.symlink(canary, os.path.join(linked, "records.jsonl"))
        expect("--state DIR whose records.jsonl is a link to a file outside it",
               run(mock, ["--records", "10", "--state", linked]), 1,
               "records.jsonl: cannot be opened (a symbolic link, not followed)")
        with open(canary) as kept:
            if kept.read() != "canary: not a record line\n":
                print("FAIL the link's target was changed")
                FAILED.append("--state link target changed")
        stop_while_loading(mock, tmp)
    return finish()


def finish():
    if FAILED:
        print(f"{len(FAILED)} failed: {', '.join(FAILED)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
