#!/usr/bin/env bash
# Uploads must not slow reads: wrk's requests/s on a middle page of the default collection (300,000
# records), then N uploads (default 20000) into the same mock, then the same page again. Prints both
# figures, the ratio and PASS/MISS (target: after >= 0.9x before). Exit 0 also on a miss; 2 when the
# setup is broken. Usage: bench/uploads.sh [--no-build] [--uploads N]. See docs/bench.md.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)

MOCK="$root/build/release/mock/entities-images-mock"
UPLOADS=20000
DURATION=4
BUILD=true
while (($#)); do
  case $1 in
    --no-build) BUILD=false ;;
    --uploads) UPLOADS=${2:?--uploads needs a number}; shift ;;
    -h | --help) echo "usage: bench/uploads.sh [--no-build] [--uploads N]"; exit 0 ;;
    *) echo "usage: bench/uploads.sh [--no-build] [--uploads N]" >&2; exit 2 ;;
  esac
  shift
done

BENCH_TMP=$(mktemp -d /tmp/entimg-uploads-bench.XXXXXX)
SEED=1
# shellcheck source=bench/lib.sh
source "$here/lib.sh"  # log, die, cleanup, build_release
trap cleanup EXIT
trap 'exit 130' INT TERM
command -v wrk >/dev/null || die "wrk not found (ci/setup.sh installs it)"
$BUILD && build_release entities-images-mock
[[ -x $MOCK ]] || die "no mock binary in build/release (run without --no-build)"

"$MOCK" --port 0 --records 300000 --seed "$SEED" --user bench:bench --quiet --memo-bytes 0 >"$BENCH_TMP/mock.out" 2>&1 &
STARTED_PIDS+=($!)
base=
for _ in $(seq 200); do
  base=$(sed -n 's/^listening on //p' "$BENCH_TMP/mock.out")
  [[ -n $base ]] && break
  sleep 0.05
done
[[ -n $base ]] || die "the mock did not start: $(cat "$BENCH_TMP/mock.out")"
page="$base/edw/api/entities-images/?offset=150000"

rate() {  # wrk's requests/s on the middle page, one thread, 8 connections
  wrk -t1 -c8 -d"${DURATION}s" "$page" | awk '/Requests\/sec/ {print $2}'
}
wrk -t1 -c8 -d1s "$page" >/dev/null  # warm up
before=$(rate)
log "before: $before requests/s; uploading $UPLOADS records..."
/usr/bin/python3 - "$base" "$UPLOADS" <<'PY' || die "uploads failed"
import base64, http.client, json, sys, time, urllib.parse
base, count = sys.argv[1], int(sys.argv[2])
url = urllib.parse.urlsplit(base)
conn = http.client.HTTPConnection(url.hostname, url.port, timeout=30)
conn.request("GET", "/edw/api/entities-images/?limit=20")
entities = sorted({r["entity"] for r in json.loads(conn.getresponse().read())["results"]})
auth = "Basic " + base64.b64encode(b"bench:bench").decode()
started = time.monotonic()
for n in range(count):
    boundary = "----entimgbench%08d" % n
    body = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"entity\"\r\n\r\n{entities[n % len(entities)]}"
            f"\r\n--{boundary}\r\nContent-Disposition: form-data; name=\"order\"\r\n\r\n{n % 7}\r\n"
            f"--{boundary}\r\nContent-Disposition: form-data; name=\"image\"; filename=\"b{n}.jpg\"\r\n"
            f"Content-Type: image/jpeg\r\n\r\n").encode() + bytes([n % 251]) * 64 + f"\r\n--{boundary}--\r\n".encode()
    conn.request("POST", "/edw/api/entities-images/", body,
                 {"Authorization": auth, "Content-Type": "multipart/form-data; boundary=" + boundary})
    response = conn.getresponse()
    response.read()
    if response.status != 201:
        sys.exit(f"upload {n}: status {response.status}")
print(f"{count} uploads in {time.monotonic() - started:.1f} s", file=sys.stderr)
PY
count=$(curl -s "$page" | /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["count"])')
[[ $count == $((300000 + UPLOADS)) ]] || die "count is $count after the uploads, not $((300000 + UPLOADS))"
after=$(rate)
ratio=$(awk -v a="$after" -v b="$before" 'BEGIN {printf "%.2f", a / b}')
verdict=$(awk -v r="$ratio" 'BEGIN {print (r >= 0.9 ? "PASS" : "MISS")}')
printf 'middle page (offset 150000 of %s), wrk -t1 -c8 -d%ss\n' "$count" "$DURATION"
printf '  before uploads: %10s requests/s\n' "$before"
printf '  after %6s:   %10s requests/s\n' "$UPLOADS" "$after"
printf '  ratio %s (target >= 0.90): %s\n' "$ratio" "$verdict"
