#!/usr/bin/env bash
# A full walk of the mock's 300,000 records with every record's picture loaded and judged (image_loads,
# docs/contract.md "Past the list"), next to the same walk without pictures (--images none), measured in the
# same run: wall time, requests and the suite's peak RSS of each, the ratio of the times, and PASS/MISS for the
# RSS target (under 64 MiB). Exit 0 also on a miss; 2 when the setup is broken or the suite fails a rule.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)

MOCK="$root/build/release/mock/entities-images-mock"
SUITE="$root/build/release/contract/entities-images-contract"
RECORDS=300000
SEED=1
BUILD=true
LIMIT=1000
CONCURRENCY=2
RSS_TARGET_MIB=64

usage() {
  cat <<USAGE
usage: bench/pictures.sh [--records N] [--walk-limit N] [--concurrency N] [--no-build]
  --records      size of the mock's collection (default $RECORDS)
  --walk-limit   records a walk page (default $LIMIT)
  --concurrency  the suite's --concurrency: pages in flight, and threads loading pictures (default $CONCURRENCY)
  --no-build     use the binaries already in build/release
USAGE
}

while (($#)); do
  case $1 in
    --records) RECORDS=$2; shift 2 ;;
    --walk-limit) LIMIT=$2; shift 2 ;;
    --concurrency) CONCURRENCY=$2; shift 2 ;;
    --no-build) BUILD=false; shift ;;
    -h | --help) usage; exit 0 ;;
    *) usage >&2; exit 2 ;;
  esac
done

BENCH_TMP=$(mktemp -d /tmp/entimg-pictures-bench.XXXXXX)
# shellcheck source=bench/lib.sh
source "$here/lib.sh"  # log, die, cleanup, start_mock, ratio, verdict
trap cleanup EXIT
trap 'exit 130' INT TERM
whole_number --records "$RECORDS" 1
whole_number --walk-limit "$LIMIT" 1 10000
whole_number --concurrency "$CONCURRENCY" 1 64
[[ -x /usr/bin/time ]] || die "/usr/bin/time not found (ci/setup.sh installs it)"

$BUILD && build_release entities-images-contract entities-images-mock
[[ -x $SUITE && -x $MOCK ]] || die "no binaries in build/release (run without --no-build)"

start_mock "$RECORDS"
BASE="http://127.0.0.1:$MOCK_PORT"

# walk IMAGES NAME: a full walk; sets WALK_S (wall), WALK_REQUESTS, WALK_RSS_KB and WALK_PICTURES.
walk() {
  local images=$1 name=$2 t0 t1
  t0=$EPOCHREALTIME
  /usr/bin/time -f '%M' -o "$BENCH_TMP/$name.rss" "$SUITE" --base-url "$BASE" --seed "$SEED" --mode full \
    --walk-limit "$LIMIT" --concurrency "$CONCURRENCY" --images "$images" --no-progress \
    --json "$BENCH_TMP/$name.json" >"$BENCH_TMP/$name.txt" 2>&1 ||
    die "the suite did not pass against the mock (--images $images): $(tail -n 5 "$BENCH_TMP/$name.txt")"
  t1=$EPOCHREALTIME
  WALK_S=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
  WALK_REQUESTS=$(grep -o '"requests": [0-9]*' "$BENCH_TMP/$name.json" | tr -dc '0-9')
  WALK_RSS_KB=$(tail -n 1 "$BENCH_TMP/$name.rss")
  WALK_PICTURES=$(grep -o '[0-9]* pictures\? loaded' "$BENCH_TMP/$name.txt" | head -n 1 | tr -dc '0-9' || true)
}

echo "bench: full walk of $RECORDS records (--walk-limit $LIMIT, --concurrency $CONCURRENCY) with every picture" \
  "and without; $(nproc) cores, $(uname -r)"
walk none plain
plain_s=$WALK_S plain_requests=$WALK_REQUESTS plain_rss=$WALK_RSS_KB
walk all pictures
echo "without pictures: ${plain_s} s, $plain_requests requests, peak RSS $(fmt_mib "$plain_rss")"
echo "every picture:    ${WALK_S} s, $WALK_REQUESTS requests (${WALK_PICTURES:-0} pictures loaded), peak RSS" \
  "$(fmt_mib "$WALK_RSS_KB")"
echo "pictures/plain time: $(ratio "$WALK_S" "$plain_s"); pictures a second:" \
  "$(awk -v n="${WALK_PICTURES:-0}" -v s="$WALK_S" 'BEGIN { printf "%.0f", (s > 0 ? n / s : 0) }')"
rss_mib=$(awk -v k="$WALK_RSS_KB" 'BEGIN { printf "%.1f", k / 1024 }')
if awk -v m="$rss_mib" -v t="$RSS_TARGET_MIB" 'BEGIN { exit !(m < t) }'; then
  echo "PASS: the suite's peak RSS ${rss_mib} MiB with every picture (target: under $RSS_TARGET_MIB MiB)"
else
  echo "MISS: the suite's peak RSS ${rss_mib} MiB with every picture (target: under $RSS_TARGET_MIB MiB)"
fi
