#!/usr/bin/python3
"""The suite against correct deployments must pass: the mock (quick, and full over 300,000 records)
and the real Django REST Framework replica of the endpoint (quick and full), pictures included: the replica's
MEDIA_URL is served as a deployment's front server serves it (mock/tests/differential/front_media.py)."""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from servers import fail, run, serve  # noqa: E402


def check(name, contract, url, extra, expect_code=0, expect_error=""):
    code, out, err = run([contract, "--base-url", url, "--no-progress", "--seed", "1"] + extra)
    last = out.strip().splitlines()[-1] if out.strip() else ""
    ok = code == expect_code and expect_error in err
    print("%s %s: exit %d, %s" % ("PASS" if ok else "FAIL", name, code, last))
    if not ok:
        print(out)
        print(err)
    return ok


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--contract", required=True)
    parser.add_argument("--mock", required=True)
    parser.add_argument("--drf", required=True, help="serve_drf.py of the differential test")
    parser.add_argument("--dataset", required=True, help="the dataset DRF serves")
    parser.add_argument("--only", choices=["mock", "drf"])
    args = parser.parse_args()

    results = []
    if args.only in (None, "mock"):
        with serve([args.mock, "--port", "0"]) as url:
            results.append(check("mock quick", args.contract, url, []))
            # Every record's picture in full mode is bench/walk.sh's (300,000 loads); a sample spread over the
            # collection here keeps the debug build's run short.
            results.append(check("mock full, 300000 records, --walk-limit 1000, --images sample:3000",
                                 args.contract, url, ["--mode", "full", "--walk-limit", "1000", "--images",
                                                      "sample:3000"]))
            # A gate that checks nothing must not pass. Walk rules alone in quick mode: refused before any
            # request.
            results.append(check("mock quick, --only a walk rule: refused, exit 2", args.contract, url,
                                 ["--only", "walk_count_matches"], 2, "leave only rules of the full walk"))
        with serve([args.mock, "--port", "0", "--records", "0"]) as url:
            # A rule that an empty collection gives nothing to judge: found out by the run.
            results.append(check("mock of 0 records, --only results_ascending: nothing checked, exit 2",
                                 args.contract, url, ["--only", "results_ascending"], 2,
                                 "error: no rule was checked"))
    if args.only in (None, "drf"):
        with serve(["/usr/bin/python3", args.drf, "--dataset", args.dataset, "--port", "0"]) as url:
            results.append(check("DRF quick", args.contract, url, []))
            # DRF's server is single-threaded: one page at a time.
            results.append(check("DRF full", args.contract, url, ["--mode", "full", "--concurrency", "1"]))
            results.append(check("DRF full, --walk-limit 5", args.contract, url,
                                 ["--mode", "full", "--walk-limit", "5", "--concurrency", "1"]))
    passed = sum(results)
    print("%d passed, %d failed" % (passed, len(results) - passed))
    sys.exit(0 if passed == len(results) else 1)


if __name__ == "__main__":
    main()
