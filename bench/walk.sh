#!/usr/bin/env bash
# The contract suite's full walk over the mock's 300,000 records with --walk-limit 1000 (targets: at least
# 200,000 records/s, schema validation included, and at least half the reference's records/s), next to a
# reference measured in the same run: curl fetching the very same 300 pages over 2 connections with no
# checks at all, i.e. what the mock and loopback alone allow. Each round also fetches the same pages through the
# suite's own HTTP client with no rule (entimg-walk-fetch-bench), then with simdjson's parse, then the walk with
# the rules that read every record left out (--skip), so the gap splits into client, parse, the page and walk
# rules, and the record rules. Rounds alternate them. These walks load no picture (--images none), as the
# reference fetches none. Then the walk as it runs by default, every record's picture judged (its head, a
# sample whole), against curl fetching the same pages and the same pictures (with the walk's Range) on as
# many connections (--concurrency for pages, --picture-concurrency for pictures): like with like, target
# walk/reference >= 0.8. Prints each round, the medians, the ratios and PASS/MISS. Exit 0 also on a miss; 2
# when the setup is broken or the suite fails a rule. See docs/bench.md.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)

MOCK="$root/build/release/mock/entities-images-mock"
SUITE="$root/build/release/contract/entities-images-contract"
FETCH_BENCH="$root/build/release/bench/entimg-walk-fetch-bench"
RECORDS=300000
LIMIT=1000
ROUNDS=5
CONCURRENCY=2
PICTURE_CONCURRENCY=4
SEED=1
BUILD=true
TARGET=200000
TARGET_RATIO=0.5
TARGET_PICTURES_RATIO=0.8

usage() {
  cat <<USAGE
usage: bench/walk.sh [--rounds N] [--records N] [--concurrency N] [--no-build]
  --rounds       rounds, each one walk and one reference fetch (default $ROUNDS)
  --records      size of the mock's collection (default $RECORDS)
  --concurrency  the suite's --concurrency, also the reference's parallel connections (default $CONCURRENCY)
  --no-build     use the binaries already in build/release
USAGE
}

while (($#)); do
  case $1 in
    --rounds) ROUNDS=$2; shift 2 ;;
    --records) RECORDS=$2; shift 2 ;;
    --concurrency) CONCURRENCY=$2; shift 2 ;;
    --no-build) BUILD=false; shift ;;
    -h | --help) usage; exit 0 ;;
    *) usage >&2; exit 2 ;;
  esac
done

BENCH_TMP=$(mktemp -d /tmp/entimg-walk-bench.XXXXXX)
# shellcheck source=bench/lib.sh
source "$here/lib.sh"  # log, die, cleanup, start_mock, median, ratio, verdict
trap cleanup EXIT
trap 'exit 130' INT TERM
whole_number --rounds "$ROUNDS" 1 50
whole_number --records "$RECORDS" 1
whole_number --concurrency "$CONCURRENCY" 1 16
command -v curl >/dev/null || die "curl not found (ci/setup.sh installs it)"

$BUILD && build_release entities-images-contract entities-images-mock entimg-walk-fetch-bench
[[ -x $SUITE && -x $MOCK && -x $FETCH_BENCH ]] || die "no binaries in build/release (run without --no-build)"

start_mock "$RECORDS"
BASE="http://127.0.0.1:$MOCK_PORT"
# The reference's requests: the walk's pages, as a curl config (one url and output pair each).
CONFIG="$BENCH_TMP/pages.curl"
for ((offset = 0; offset < RECORDS; offset += LIMIT)); do
  printf 'url = "%s/edw/api/entities-images/?limit=%d&offset=%d"\noutput = /dev/null\n' "$BASE" "$LIMIT" "$offset"
done >"$CONFIG"
PAGES=$(((RECORDS + LIMIT - 1) / LIMIT))

# seconds_of COMMAND...: runs it and sets SECONDS_TAKEN (wall) and CPU_TAKEN (user+sys of it and its children).
seconds_of() {
  local t0 t1 before after
  before=$(awk '{ print $14 + $15 + $16 + $17 }' /proc/$$/stat)
  t0=$EPOCHREALTIME
  "$@"
  t1=$EPOCHREALTIME
  after=$(awk '{ print $14 + $15 + $16 + $17 }' /proc/$$/stat)
  SECONDS_TAKEN=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
  CPU_TAKEN=$(awk -v a="$before" -v b="$after" -v hz="$(getconf CLK_TCK)" 'BEGIN { printf "%.2f", (b - a) / hz }')
}

# The rules that read every record of a page; the rest read the envelope, links, headers and the walk.
RECORD_RULES=(record_schema image_matches_file file_layout mime_type_matches_extension link_origin
  results_ascending walk_no_duplicates)
# walk [SUITE-FLAGS...]: one full walk; its report in walk.txt.
walk() {
  "$SUITE" --base-url "$BASE" --mode full --walk-limit "$LIMIT" --concurrency "$CONCURRENCY" --seed "$SEED" \
    --picture-concurrency "$PICTURE_CONCURRENCY" --no-progress --images none "$@" >"$BENCH_TMP/walk.txt" 2>&1 || die "the suite did not pass against the mock: $(tail -n 5 "$BENCH_TMP/walk.txt")"
}
walked_rps() { grep -o '([0-9]* records/s)' "$BENCH_TMP/walk.txt" | tr -dc '0-9'; }
fetch_only() {
  curl -sS --no-progress-meter --fail --parallel --parallel-max "$CONCURRENCY" --max-time 120 -K "$CONFIG" ||
    die "the reference fetch failed"
}

echo "bench: full walk of $RECORDS records (--walk-limit $LIMIT, --concurrency $CONCURRENCY) vs curl fetching the" \
  "same $PAGES pages; $ROUNDS round(s), $(nproc) cores, $(uname -r)"
echo "bench: the machine is shared and noisy: the reference shows what the mock and loopback allowed" \
  "at that moment"
walk  # warm-up, untimed: page cache, allocator, the mock's first answers
declare -a walk_rps fetch_rps rps_ratio client_rps parse_rps bare_rps
# client_only MODE: the walk's pages through the suite's own HTTP client on --concurrency threads, no rule
# (fetch), then with each body parsed by simdjson as the suite parses it (parse); sets CLIENT_RPS.
client_only() {
  local line
  line=$("$FETCH_BENCH" "$BASE" "$RECORDS" "$LIMIT" "$CONCURRENCY" "$1") || die "entimg-walk-fetch-bench $1 failed"
  CLIENT_RPS=$(sed -E 's/.*: ([0-9]+) records\/s$/\1/' <<<"$line")
}
for ((r = 1; r <= ROUNDS; r++)); do
  mock_ticks0=$(cpu_ticks "$MOCK_PID")
  seconds_of walk
  mock_ticks1=$(cpu_ticks "$MOCK_PID")
  walk_seconds=$SECONDS_TAKEN walk_cpu=$CPU_TAKEN
  reported=$(walked_rps)
  seconds_of fetch_only
  walk_rps+=("$reported")
  fetch_rps+=("$(awk -v n="$RECORDS" -v s="$SECONDS_TAKEN" 'BEGIN { printf "%.0f", n / s }')")
  rps_ratio+=("$(ratio "${walk_rps[-1]}" "${fetch_rps[-1]}")")
  client_only fetch
  client_rps+=("$CLIENT_RPS")
  client_only parse
  parse_rps+=("$CLIENT_RPS")
  walk "${RECORD_RULES[@]/#/--skip=}"
  bare_rps+=("$(walked_rps)")
  printf 'round %d: walk %s records/s (whole run %.2f s, suite CPU %s s = %.1f us/record, mock CPU %.2f s);' \
    "$r" "${walk_rps[-1]}" "$walk_seconds" "$walk_cpu" "$(awk -v c="$walk_cpu" -v n="$RECORDS" 'BEGIN { print c / n * 1e6 }')" \
    "$(awk -v t=$((mock_ticks1 - mock_ticks0)) -v hz="$(getconf CLK_TCK)" 'BEGIN { print t / hz }')"
  printf ' reference %s records/s (%.2f s); ratio %s; suite client alone %s, with parse %s, walk without the' \
    "${fetch_rps[-1]}" "$SECONDS_TAKEN" "${rps_ratio[-1]}" "${client_rps[-1]}" "${parse_rps[-1]}"
  printf ' record rules %s records/s\n' "${bare_rps[-1]}"
done

walk_median=$(median "${walk_rps[@]}")
best=$(printf '%s\n' "${walk_rps[@]}" | sort -g | tail -n 1)
echo "== medians of $ROUNDS rounds"
printf 'full walk: %.0f records/s (best %s); reference fetch: %.0f records/s; walk/reference %s\n' \
  "$walk_median" "$best" "$(median "${fetch_rps[@]}")" "$(median "${rps_ratio[@]}")"
client_median=$(median "${client_rps[@]}")
parse_median=$(median "${parse_rps[@]}")
printf 'before any rule (no verdict): the suite'"'"'s HTTP client alone %.0f records/s = %s of the reference;' \
  "$client_median" "$(ratio "$client_median" "$(median "${fetch_rps[@]}")")"
printf ' with simdjson'"'"'s parse %.0f records/s = %s\n' "$parse_median" \
  "$(ratio "$parse_median" "$(median "${fetch_rps[@]}")")"
bare_median=$(median "${bare_rps[@]}")
printf 'the walk with the %d rules that read every record left out (--skip %s): %.0f records/s = %s\n' \
  "${#RECORD_RULES[@]}" "$(IFS=,; echo "${RECORD_RULES[*]}")" "$bare_median" \
  "$(ratio "$bare_median" "$(median "${fetch_rps[@]}")")"
printf 'target: walk >= %d records/s: %s (median)\n' "$TARGET" "$(verdict "$walk_median" '>=' "$TARGET")"
printf 'target: walk/reference >= %s: %s (median of the per-round ratios)\n' "$TARGET_RATIO" \
  "$(verdict "$(median "${rps_ratio[@]}")" '>=' "$TARGET_RATIO")"

# The walk with every record's picture (--images all, the tool's default) against curl fetching the same pages
# (on --concurrency connections) and the same pictures with the walk's Range (on --picture-concurrency
# connections) at the same time.
PICTURES_CONFIG="$BENCH_TMP/pictures.curl"
grep '^url' "$CONFIG" >"$BENCH_TMP/urls.curl"
curl -sS --fail -K "$BENCH_TMP/urls.curl" 2>/dev/null | python3 -c '
import json, sys
decoder = json.JSONDecoder()
text = sys.stdin.read()
at = 0
while at < len(text):
    page, at = decoder.raw_decode(text, at)
    for record in page["results"]:
        print("url = \"%s\"\noutput = /dev/null" % record["image"])
' >"$PICTURES_CONFIG" || die "could not list the pictures"
fetch_with_pictures() {
  curl -sS --no-progress-meter --fail --parallel --parallel-max "$CONCURRENCY" --max-time 600 -K "$CONFIG" &
  local pages=$!
  curl -sS --no-progress-meter --fail --parallel --parallel-max "$PICTURE_CONCURRENCY" --max-time 600 \
    -H 'Range: bytes=0-1023' -H 'Accept: image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8' \
    -K "$PICTURES_CONFIG" || die "the reference fetch of the pictures failed"
  wait "$pages" || die "the reference fetch of the pages failed"
}
declare -a pic_rps pic_fetch_rps pic_ratio
for ((r = 1; r <= ROUNDS; r++)); do
  seconds_of walk --images all
  pic_rps+=("$(walked_rps)")
  seconds_of fetch_with_pictures
  pic_fetch_rps+=("$(awk -v n="$RECORDS" -v s="$SECONDS_TAKEN" 'BEGIN { printf "%.0f", n / s }')")
  pic_ratio+=("$(ratio "${pic_rps[-1]}" "${pic_fetch_rps[-1]}")")
  printf 'round %d with pictures: walk %s records/s; reference (pages and pictures) %s records/s (%.2f s); ratio %s\n' \
    "$r" "${pic_rps[-1]}" "${pic_fetch_rps[-1]}" "$SECONDS_TAKEN" "${pic_ratio[-1]}"
done
echo "== medians of $ROUNDS rounds with pictures"
printf 'full walk with every picture: %.0f records/s; curl fetching the same pages and pictures: %.0f records/s;' \
  "$(median "${pic_rps[@]}")" "$(median "${pic_fetch_rps[@]}")"
printf ' walk/reference %s\n' "$(median "${pic_ratio[@]}")"
printf 'target: walk with pictures/reference >= %s: %s (median of the per-round ratios)\n' "$TARGET_PICTURES_RATIO" \
  "$(verdict "$(median "${pic_ratio[@]}")" '>=' "$TARGET_PICTURES_RATIO")"
