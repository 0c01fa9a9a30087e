#!/usr/bin/python3
"""Expensive answers do not starve cheap ones (issue 36, item 4): four concurrent `?limit=...&format=api` pages
took every worker of the mock (--threads 4 here, the default on two cores), and an ordinary GET waited until
one was done (22 s at 300,000 records). Pages of more than --bulk-records records are now computed on the bulk
lane, so a fresh client is answered while they are built; the big pages still come whole, and their
connections serve the next request.

The size of the big pages is calibrated first (one page alone, scaled to take about --page-seconds), so that the
old front would keep a fresh GET waiting about that long in any build (dev, sanitizers, release).

With --npx APP (an app folder with the npm package installed) the same against `npx entities-images-mock`, whose
bulk lane is a worker thread with a core of its own (one such page held Node's event loop for seconds).

No wall-clock bound (issue 43): a fresh GET is held against the big pages of the same run, so a slow or busy
machine slows both alike. It must be answered in under half the time the quickest big page took (the old front
kept it waiting a whole page or more), and at least 3 must be answered before the last page is done.

Usage: bulk_pages.py (--mock PATH | --npx APP) [--page-seconds S]. Exit 0 when every case holds, 1 naming the
ones that do not.
"""

import argparse
import http.client
import re
import subprocess
import sys
import threading
import time

READY = re.compile(r"listening on http://127\.0\.0\.1:(\d+)")


def start(argv):
    process = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    line = process.stdout.readline().decode("utf-8", "replace")
    match = READY.search(line)
    if not match:
        process.kill()
        sys.exit(f"the mock did not start: {' '.join(argv)}: {line!r}")
    threading.Thread(target=process.stdout.read, daemon=True).start()
    return process, int(match.group(1))


def get(port, target, connection=None):
    """(status, body, seconds, connection) of one GET, on `connection` or a fresh one."""
    connection = connection or http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    started = time.monotonic()
    connection.request("GET", target)
    answer = connection.getresponse()
    body = answer.read()
    return answer.status, body, time.monotonic() - started, connection


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mock")
    parser.add_argument("--npx", metavar="APP")
    parser.add_argument("--page-seconds", type=float, default=0.8, help="one big page's time alone (default 0.8)")
    args = parser.parse_args()
    records = 200000
    if args.npx:
        argv = ["node", f"{args.npx}/node_modules/entities-images-mock/bin/entities-images-mock.js", "--port", "0",
                "--quiet", "--records", str(records)]
    else:
        argv = [args.mock, "--port", "0", "--quiet", "--threads", "4", "--memo-bytes", "0", "--records", str(records)]
    process, port = start(argv)
    failed = []
    try:
        _, _, seconds, connection = get(port, "/edw/api/entities-images/?format=api&limit=5000")
        connection.close()
        limit = max(1001, min(records, int(5000 * args.page_seconds / max(seconds, 1e-3))))
        huge = f"/edw/api/entities-images/?format=api&limit={limit}"
        results = [None] * 4

        def fetch_huge(i):
            status, body, seconds, connection = get(port, huge)
            after = get(port, "/edw/api/entities-images/?limit=1", connection)  # the same connection, after it
            connection.close()
            results[i] = (status, len(body), seconds, time.monotonic(), after[0])

        fetchers = [threading.Thread(target=fetch_huge, args=(i,)) for i in range(4)]
        for fetcher in fetchers:
            fetcher.start()
        time.sleep(0.3)  # the four are admitted and being built
        probes = []  # one every 50 ms while the big pages are built, at least 5
        while len(probes) < 5 or any(fetcher.is_alive() for fetcher in fetchers):
            status, body, seconds, connection = get(port, "/edw/api/entities-images/?limit=1")
            connection.close()
            probes.append((status, seconds, time.monotonic()))
            time.sleep(0.05)
        for fetcher in fetchers:
            fetcher.join()
        slowest = max(seconds for _, seconds, _ in probes)
        last_page = max(r[3] for r in results)
        during = sum(1 for _, _, answered in probes if answered < last_page)
        print(f"fresh GETs while four {limit}-record browsable pages were built: "
              f"{', '.join(f'{seconds * 1000:.0f}' for _, seconds, _ in probes[:12])}{' ...' if len(probes) > 12 else ''} "
              f"ms ({during} of {len(probes)} answered before the last page was done); the pages took "
              f"{', '.join(f'{r[2]:.2f}' for r in results)} s")
        if any(status != 200 for status, _, _ in probes):
            failed.append("a fresh GET was not answered 200")
        quickest_page = min(r[2] for r in results)
        if slowest > quickest_page / 2:
            failed.append(f"a fresh GET took {slowest * 1000:.0f} ms (expected under half the quickest big page's "
                          f"{quickest_page * 1000:.0f} ms)")
        if during < 3:
            failed.append("fewer than 3 fresh GETs were answered while the big pages were built: too small to show anything")
        if any(r[0] != 200 or r[4] != 200 for r in results) or len({r[1] for r in results}) != 1:
            failed.append(f"the big pages or the requests after them went wrong: {results}")
    finally:
        process.terminate()
        process.wait(30)
    for problem in failed:
        print("FAIL " + problem)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
