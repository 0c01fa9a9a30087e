#!/usr/bin/env bash
# The contract suite's quick mode (the plain plan and the sides a client meets the deployment from, docs/
# contract.md) against the mock's 300,000 records: its wall time and request count, next to a reference
# measured in the same run: curl asking the first page as many times, one after the other on one connection,
# i.e. what the mock and loopback alone cost for that many requests. Rounds alternate the two. Prints each
# round, the medians, the ratio quick/reference and PASS/MISS against the target (under 5 s). Then the deploy
# gate's run as ci/gate.sh makes it, at --rate 10: its requests and seconds, PASS/MISS against at most 150
# requests and 20 s (issue 42). Exit 0 also on a miss; 2 when the setup is broken or the suite fails a rule.
# See docs/bench.md.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)

MOCK="$root/build/release/mock/entities-images-mock"
SUITE="$root/build/release/contract/entities-images-contract"
RECORDS=300000
ROUNDS=5
SEED=1
BUILD=true
TARGET=5

usage() {
  cat <<USAGE
usage: bench/quick.sh [--rounds N] [--records N] [--no-build]
  --rounds    rounds, each one quick run and one reference fetch (default $ROUNDS)
  --records   size of the mock's collection (default $RECORDS)
  --no-build  use the binaries already in build/release
USAGE
}

while (($#)); do
  case $1 in
    --rounds) ROUNDS=$2; shift 2 ;;
    --records) RECORDS=$2; shift 2 ;;
    --no-build) BUILD=false; shift ;;
    -h | --help) usage; exit 0 ;;
    *) usage >&2; exit 2 ;;
  esac
done

BENCH_TMP=$(mktemp -d /tmp/entimg-quick-bench.XXXXXX)
# shellcheck source=bench/lib.sh
source "$here/lib.sh"  # log, die, cleanup, start_mock, median, ratio, verdict
trap cleanup EXIT
trap 'exit 130' INT TERM
whole_number --rounds "$ROUNDS" 1 50
whole_number --records "$RECORDS" 1
command -v curl >/dev/null || die "curl not found (ci/setup.sh installs it)"

$BUILD && build_release entities-images-contract entities-images-mock
[[ -x $SUITE && -x $MOCK ]] || die "no binaries in build/release (run without --no-build)"

start_mock "$RECORDS"
BASE="http://127.0.0.1:$MOCK_PORT"

# seconds_of COMMAND...: runs it and sets SECONDS_TAKEN (wall).
seconds_of() {
  local t0 t1
  t0=$EPOCHREALTIME
  "$@"
  t1=$EPOCHREALTIME
  SECONDS_TAKEN=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
}

quick() {
  "$SUITE" --base-url "$BASE" --seed "$SEED" --no-progress --json "$BENCH_TMP/quick.json" "$@" >"$BENCH_TMP/quick.txt" 2>&1 ||
    die "the suite did not pass against the mock: $(tail -n 5 "$BENCH_TMP/quick.txt")"
}
fetch_only() {
  curl -sS --no-progress-meter --fail --max-time 60 -K "$BENCH_TMP/first.curl" || die "the reference fetch failed"
}

quick  # warm-up, untimed, and the request count the reference repeats
REQUESTS=$(grep -o '"requests": [0-9]*' "$BENCH_TMP/quick.json" | tr -dc '0-9')
for ((i = 0; i < REQUESTS; i++)); do
  printf 'url = "%s/edw/api/entities-images/"\noutput = /dev/null\n' "$BASE"
done >"$BENCH_TMP/first.curl"

echo "bench: quick mode against $RECORDS records ($REQUESTS requests) vs curl asking the first page $REQUESTS" \
  "times on one connection; $ROUNDS round(s), $(nproc) cores, $(uname -r)"
declare -a quick_s fetch_s ratios
for ((r = 1; r <= ROUNDS; r++)); do
  seconds_of quick
  quick_s+=("$SECONDS_TAKEN")
  seconds_of fetch_only
  fetch_s+=("$SECONDS_TAKEN")
  ratios+=("$(ratio "${quick_s[-1]}" "${fetch_s[-1]}")")
  printf 'round %d: quick %.3f s (%d requests); reference %.3f s; ratio %s\n' "$r" "${quick_s[-1]}" "$REQUESTS" \
    "${fetch_s[-1]}" "${ratios[-1]}"
done
quick_median=$(median "${quick_s[@]}")
echo "== medians of $ROUNDS rounds"
printf 'quick run: %.3f s for %d requests; reference: %.3f s; quick/reference %s\n' "$quick_median" "$REQUESTS" \
  "$(median "${fetch_s[@]}")" "$(median "${ratios[@]}")"
printf 'target: quick run < %d s: %s (median)\n' "$TARGET" "$(verdict "$quick_median" '<' "$TARGET")"

# The deploy gate: ci/gate.sh's --rate 10 (requests spaced 100 ms apart), one run.
seconds_of quick --rate 10
GATE_REQUESTS=$(grep -o '"requests": [0-9]*' "$BENCH_TMP/quick.json" | tr -dc '0-9')
printf 'quick run at --rate 10: %d requests in %.3f s\n' "$GATE_REQUESTS" "$SECONDS_TAKEN"
printf 'target: at --rate 10 at most 150 requests: %s\n' "$(verdict "$GATE_REQUESTS" '<=' 150)"
printf 'target: at --rate 10 at most 20 s: %s\n' "$(verdict "$SECONDS_TAKEN" '<=' 20)"
