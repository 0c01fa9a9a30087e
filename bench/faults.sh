#!/usr/bin/env bash
# Delayed requests must not hold up the others: wrk's latency on ordinary pages, alone and then while
# 100 requests asking X-Mock-Latency are waiting on the same mock, in one run. Prints both, the ratios
# and PASS/MISS (target: p50 and p99 within 1.5x, every delayed request answered 200 afterwards).
# Exit 0 also on a miss; 2 when the setup is broken. See docs/bench.md.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)

MOCK="$root/build/release/mock/entities-images-mock"
SEED=1
DELAYED=100
DELAY_MS=8000
DURATION=3
BUILD=true
case ${1:-} in
  --no-build) BUILD=false ;;
  -h | --help) echo "usage: bench/faults.sh [--no-build]"; exit 0 ;;
  "") ;;
  *) echo "usage: bench/faults.sh [--no-build]" >&2; exit 2 ;;
esac

BENCH_TMP=$(mktemp -d /tmp/entimg-faults-bench.XXXXXX)
# shellcheck source=bench/lib.sh
source "$here/lib.sh"  # log, die, cleanup, start_mock, build_release, measure, ratio, verdict, fmt_us
trap cleanup EXIT
trap 'exit 130' INT TERM
for tool in curl wrk; do command -v "$tool" >/dev/null || die "$tool not found (ci/setup.sh installs it)"; done
$BUILD && build_release entities-images-mock
[[ -x $MOCK ]] || die "no mock binary in build/release (run without --no-build)"
CLK_TCK=$(getconf CLK_TCK)

# Every answer computed: the memo would serve this one URL from memory.
MOCK_EXTRA="--memo-bytes 0" start_mock 300000
url="http://127.0.0.1:$MOCK_PORT/edw/api/entities-images/?offset=120000"
warm "$url"
measure alone "$url" 8 "$MOCK_PID"
read -r _ alone_p50 alone_p99 _ <<<"$MEASURED"

# The delayed requests: each holds a worker (and a connection) for DELAY_MS.
for ((k = 0; k < DELAYED; k++)); do
  curl -s -o /dev/null -w '%{http_code}\n' --max-time 60 -H "X-Mock-Latency: $DELAY_MS" \
    "http://127.0.0.1:$MOCK_PORT/edw/api/entities-images/?offset=$k" >>"$BENCH_TMP/delayed.txt" &
  STARTED_PIDS+=("$!")
done
sleep 1
measure during "$url" 8 "$MOCK_PID"
read -r _ during_p50 during_p99 _ <<<"$MEASURED"
answered_early=$(wc -l <"$BENCH_TMP/delayed.txt")
for pid in "${STARTED_PIDS[@]}"; do [[ $pid == "$MOCK_PID" ]] || wait "$pid" 2>/dev/null || true; done
ok=$(grep -c '^200$' "$BENCH_TMP/delayed.txt" || true)

echo "bench: wrk, 8 connections, ${DURATION}s, $(nproc) cores; $DELAYED requests delayed ${DELAY_MS} ms each"
printf 'alone:                        p50 %s  p99 %s\n' "$(fmt_us "$alone_p50")" "$(fmt_us "$alone_p99")"
printf 'with %d delayed in flight:   p50 %s  p99 %s  (delayed answered before the end: %d)\n' "$DELAYED" \
  "$(fmt_us "$during_p50")" "$(fmt_us "$during_p99")" "$answered_early"
r50=$(ratio "$during_p50" "$alone_p50") r99=$(ratio "$during_p99" "$alone_p99")
echo "ratio during/alone: p50 $r50, p99 $r99; delayed requests answered 200: $ok of $DELAYED"
echo "target: p50 ratio <= 1.5: $(verdict "$r50" '<=' 1.5); p99 ratio <= 1.5: $(verdict "$r99" '<=' 1.5);" \
  "all delayed answered: $([[ $ok == "$DELAYED" && $answered_early == 0 ]] && echo PASS || echo MISS)"
