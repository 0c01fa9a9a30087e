#!/usr/bin/python3
"""--state survives SIGKILL: every upload answered 201 is there, unchanged, after a restart.

Uploads run back to back from two threads while the mock is killed with SIGKILL at a random moment,
several times over. After each restart with the same --state directory, every acknowledged record must
be served as it was acknowledged (detail route and listing) with its exact bytes at its image URL, and
any other created record (written but killed before its answer went out) must be whole. A line cut
short by hand is dropped on restart and never served.

Usage: state_sigkill.py --mock BINARY
"""

import argparse
import base64
import json
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request

AUTH = "Basic " + base64.b64encode(b"alice:s3cret").decode()
LIST = "/edw/api/entities-images/"
failures = 0


def check(name, ok, detail=""):
    global failures
    failures += 0 if ok else 1
    print(("PASS " if ok else "FAIL ") + name + (": " + detail if detail and not ok else ""), flush=True)


def start(mock, state):
    proc = subprocess.Popen([mock, "--port", "0", "--records", "40", "--seed", "3", "--user", "alice:s3cret",
                             "--state", state, "--quiet"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True)
    lines = []
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        lines.append(line)
        match = re.search(r"listening on (http://127\.0\.0\.1:\d+)", line)
        if match:
            threading.Thread(target=lambda: [None for _ in proc.stdout], daemon=True).start()
            return proc, match.group(1), "".join(lines)
    proc.kill()
    raise RuntimeError("mock did not start:\n" + "".join(lines))


def upload(base, name, data, entity):
    boundary = "----entimg%016x" % random.getrandbits(64)
    body = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"entity\"\r\n\r\n{entity}\r\n"
            f"--{boundary}\r\nContent-Disposition: form-data; name=\"image\"; filename=\"{name}\"\r\n"
            f"Content-Type: image/jpeg\r\n\r\n").encode() + data + f"\r\n--{boundary}--\r\n".encode()
    request = urllib.request.Request(base + LIST, data=body, method="POST", headers={
        "Authorization": AUTH, "Content-Type": "multipart/form-data; boundary=" + boundary})
    with urllib.request.urlopen(request, timeout=10) as response:
        return response.status, json.loads(response.read())


def get(url):
    with urllib.request.urlopen(url, timeout=10) as response:
        return response.read()


def path_of(url):
    return "/" + url.split("/", 3)[3]


def verify(base, acknowledged, phase):
    """Every acknowledged record as acknowledged; every created record whole."""
    for record, data in acknowledged:
        served = json.loads(get(base + LIST + str(record["id"]) + "/"))
        same = {k: v for k, v in served.items() if k != "image"} == {k: v for k, v in record.items() if k != "image"}
        if not same or path_of(served["image"]) != path_of(record["image"]):
            check(f"{phase}: record {record['id']} unchanged", False, f"{served} vs {record}")
            return
        if get(base + path_of(record["image"])) != data:
            check(f"{phase}: the bytes of record {record['id']}", False)
            return
    check(f"{phase}: all {len(acknowledged)} acknowledged records are served unchanged, with their bytes", True)
    page = json.loads(get(base + LIST + "?offset=40&limit=100000"))
    created = page["results"]
    whole = all(len(get(base + path_of(r["image"]))) == r["file_size"] for r in created)
    ids = [r["id"] for r in created]
    check(f"{phase}: the listing holds them after the dataset's records ({len(created)} created), each whole",
          whole and set(r["id"] for r, _ in acknowledged) <= set(ids) and ids == sorted(ids)
          and page["count"] == 40 + len(created), f"count {page['count']}, ids {ids[:5]}...")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mock", required=True)
    parser.add_argument("--rounds", type=int, default=4)
    args = parser.parse_args()
    random.seed(int(os.environ.get("ENTIMG_TEST_SEED", "11")))
    acknowledged = []
    with tempfile.TemporaryDirectory(prefix="entimg-state-") as state:
        proc, base, _ = start(args.mock, state)
        try:
            entities = sorted({r["entity"] for r in json.loads(get(base + LIST + "?limit=40"))["results"]})
            for n in range(5):
                data = os.urandom(random.randint(1, 4000))
                status, record = upload(base, f"Фото {n}.jpg", data, entities[n % len(entities)])
                acknowledged.append((record, data))
            check("five uploads answered 201", status == 201 and len(acknowledged) == 5)
            verify(base, acknowledged, "before any kill")
            for round_ in range(args.rounds):
                stop = threading.Event()
                lock = threading.Lock()

                def keep_uploading():
                    while not stop.is_set():
                        data = os.urandom(random.randint(1, 300000))
                        try:
                            status, record = upload(base, "shot.png", data, entities[0])
                        except (OSError, urllib.error.URLError, ValueError):
                            return  # killed mid-request: not acknowledged
                        if status == 201:
                            with lock:
                                acknowledged.append((record, data))

                workers = [threading.Thread(target=keep_uploading) for _ in range(2)]
                for w in workers:
                    w.start()
                time.sleep(random.uniform(0.05, 0.6))
                proc.send_signal(signal.SIGKILL)
                proc.wait()
                stop.set()
                for w in workers:
                    w.join()
                proc, base, banner = start(args.mock, state)
                verify(base, acknowledged, f"restart {round_ + 1} after SIGKILL")

            # A line cut short (as a crash in the middle of a write leaves it) is dropped, never served.
            proc.send_signal(signal.SIGKILL)
            proc.wait()
            with open(os.path.join(state, "records.jsonl"), "ab") as log:
                log.write(b'{"record":{"id":999999999,"file":"filer_public/aa/bb/')
            proc, base, banner = start(args.mock, state)
            check("a half-written entry is reported and dropped", "cut short (a crash left its write unfinished)" in banner, banner)
            verify(base, acknowledged, "after a cut line")
            check("the cut entry is never served",
                  json.loads(get(base + LIST + "?offset=40&limit=100000"))["results"][-1]["id"] != 999999999)
            status, record = upload(base, "after.jpg", b"\xff\xd8after", entities[-1])
            acknowledged.append((record, b"\xff\xd8after"))
            proc.terminate()
            proc.wait()
            proc, base, _ = start(args.mock, state)
            verify(base, acknowledged, "an upload after the repair, and a clean restart")
        finally:
            proc.kill()
            proc.wait()
    print(f"{failures} failed")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
