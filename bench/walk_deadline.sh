#!/usr/bin/env bash
# A full walk of the mock's 300,000 records with every picture judged, against a media server that answers
# no more than ~100 pictures a second (bench/media_throttle.py in front of the mock: Django serving /media/,
# a throttled CDN), under --deadline: the run must end by itself within the deadline (and a few seconds to
# write its report), with a report that says it stopped and counts what it checked and what it left. Then the
# same with a SIGTERM sent halfway (a CI job's timeout). Prints the figures and PASS/MISS. Exit 0 also on a
# miss; 2 when the setup is broken. See docs/bench.md.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)

MOCK="$root/build/release/mock/entities-images-mock"
SUITE="$root/build/release/contract/entities-images-contract"
RECORDS=300000
DEADLINE=60
RATE=100
SEED=1  # the generated collection (start_mock)
BUILD=true

usage() {
  cat <<USAGE
usage: bench/walk_deadline.sh [--records N] [--deadline S] [--pictures-per-second N] [--no-build]
  --records              size of the mock's collection (default $RECORDS)
  --deadline             the suite's --deadline in seconds (default $DEADLINE)
  --pictures-per-second  the media server's pace (default $RATE)
  --no-build             use the binaries already in build/release
USAGE
}

while (($#)); do
  case $1 in
    --records) RECORDS=$2; shift 2 ;;
    --deadline) DEADLINE=$2; shift 2 ;;
    --pictures-per-second) RATE=$2; shift 2 ;;
    --no-build) BUILD=false; shift ;;
    -h | --help) usage; exit 0 ;;
    *) usage >&2; exit 2 ;;
  esac
done

BENCH_TMP=$(mktemp -d /tmp/entimg-walk-deadline.XXXXXX)
# shellcheck source=bench/lib.sh
source "$here/lib.sh"  # log, die, cleanup, start_mock, verdict
trap 'kill "${PROXY_PID:-}" 2>/dev/null || true; cleanup' EXIT
trap 'exit 130' INT TERM
whole_number --records "$RECORDS" 1
whole_number --deadline "$DEADLINE" 5 3600
whole_number --pictures-per-second "$RATE" 1 100000

$BUILD && build_release entities-images-contract entities-images-mock
[[ -x $SUITE && -x $MOCK ]] || die "no binaries in build/release (run without --no-build)"

start_mock "$RECORDS"
python3 "$here/media_throttle.py" --upstream "http://127.0.0.1:$MOCK_PORT" --pictures-per-second "$RATE" \
  >"$BENCH_TMP/proxy.out" 2>&1 &
PROXY_PID=$!
for _ in $(seq 100); do
  grep -q '^listening on' "$BENCH_TMP/proxy.out" 2>/dev/null && break
  sleep 0.1
done
BASE=$(sed -n 's/^listening on //p' "$BENCH_TMP/proxy.out")
[[ -n $BASE ]] || die "the throttling front did not start: $(cat "$BENCH_TMP/proxy.out")"

# run_stopped LABEL [SIGNAL-AFTER]: a full run under --deadline (and a SIGTERM after SIGNAL-AFTER seconds when
# given); prints its time, exit code and what its report says it left.
run_stopped() {
  local label=$1 after=${2:-} t0 t1 code=0
  t0=$EPOCHREALTIME
  "$SUITE" --base-url "$BASE" --mode full --deadline "$DEADLINE" --seed 1 --no-progress \
    --json "$BENCH_TMP/$label.json" >"$BENCH_TMP/$label.txt" 2>"$BENCH_TMP/$label.err" &
  local pid=$!
  if [[ -n $after ]]; then
    sleep "$after"
    kill -TERM "$pid" 2>/dev/null || true
  fi
  wait "$pid" || code=$?
  t1=$EPOCHREALTIME
  SECONDS_TAKEN=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
  local stopped
  stopped=$(grep -A1 '^STOPPED' "$BENCH_TMP/$label.txt" | tr '\n' ' ' || true)
  printf '%s: exit %d after %s s; %s\n' "$label" "$code" "$SECONDS_TAKEN" "${stopped:-no STOPPED line}"
  grep -E '^FAIL|image_loads|pictures asked|requests,' "$BENCH_TMP/$label.txt" | sed 's/^/    /' | head -n 12
  REPORTED=false
  [[ -n $stopped && -s $BENCH_TMP/$label.json ]] && grep -q '"stopped"' "$BENCH_TMP/$label.json" && REPORTED=true
}

echo "bench: full walk of $RECORDS records, every picture judged, pictures served at $RATE/s, --deadline" \
  "$DEADLINE s; $(nproc) cores, $(uname -r)"
run_stopped deadline
printf 'target: ends within the deadline + 15 s with a report of what it left: %s\n' \
  "$( [[ $REPORTED == true ]] && verdict "$SECONDS_TAKEN" '<=' $((DEADLINE + 15)) || echo MISS)"
half=$((DEADLINE / 2))
run_stopped sigterm "$half"
printf 'target: a SIGTERM after %d s ends it within 15 s with a report: %s\n' "$half" \
  "$( [[ $REPORTED == true ]] && verdict "$SECONDS_TAKEN" '<=' $((half + 15)) || echo MISS)"
