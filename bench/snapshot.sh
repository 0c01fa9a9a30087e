#!/usr/bin/env bash
# Snapshots at scale: records and diffs the mock's 300,000 records, and prints the seconds and the peak
# memory (RSS) of each step, next to the same steps on 3,000 records: memory must not grow with the
# snapshot (the diff streams both sides in id order). Exit 0; 2 when a step fails. See docs/bench.md.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)

MOCK="$root/build/release/mock/entities-images-mock"
SUITE="$root/build/release/contract/entities-images-contract"
SEED=1
BUILD=true
[[ ${1:-} == --no-build ]] && BUILD=false
[[ ${1:-} == -h || ${1:-} == --help ]] && { echo "usage: bench/snapshot.sh [--no-build]"; exit 0; }

BENCH_TMP=$(mktemp -d /tmp/entimg-snapshot-bench.XXXXXX)
# shellcheck source=bench/lib.sh
source "$here/lib.sh"  # log, die, cleanup, start_mock, build_release, ratio
trap cleanup EXIT
trap 'exit 130' INT TERM
[[ -x /usr/bin/time ]] || die "/usr/bin/time not found (ci/setup.sh installs the time package)"
$BUILD && build_release entities-images-contract entities-images-mock
[[ -x $SUITE && -x $MOCK ]] || die "no binaries in build/release (run without --no-build)"

# timed NAME COMMAND...: runs it (exit 0 or 1 accepted: diff's "changes"), prints seconds and peak RSS,
# and sets RSS_KB.
timed() {
  local name=$1 code=0; shift
  /usr/bin/time -f '%e %M' -o "$BENCH_TMP/time" "$@" >"$BENCH_TMP/out" 2>&1 || code=$?
  ((code <= 1)) || die "$name failed (exit $code): $(tail -n 5 "$BENCH_TMP/out")"
  read -r seconds RSS_KB <"$BENCH_TMP/time"
  printf '%-44s %6.2f s  peak RSS %s\n' "$name" "$seconds" "$(fmt_mib "$RSS_KB")"
}

declare -A rss
for records in 3000 300000; do
  start_mock "$records"
  url="http://127.0.0.1:$MOCK_PORT"
  snap="$BENCH_TMP/snap-$records"
  echo "== $records records (mock seed $SEED, --walk-limit 1000)"
  timed "record" "$SUITE" record --base-url "$url" --out "$snap" --walk-limit 1000 --no-progress
  printf '%-44s %s\n' "  snapshot size" "$(du -sh "$snap" | cut -f1)"
  timed "diff against the deployment (live walk)" "$SUITE" diff --snapshot "$snap" --base-url "$url" \
    --walk-limit 1000 --no-progress
  rss[live-$records]=$RSS_KB
  timed "diff against itself (two snapshots)" "$SUITE" diff --snapshot "$snap" --against "$snap" --no-progress
  rss[file-$records]=$RSS_KB
  stop_pid "$MOCK_PID"
done
echo "== memory: 300,000 records against 3,000 (bounded means close to 1)"
echo "diff, live: $(ratio "${rss[live-300000]}" "${rss[live-3000]}")x; two snapshots: $(ratio "${rss[file-300000]}" "${rss[file-3000]}")x"
