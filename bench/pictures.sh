#!/usr/bin/env bash
# The mock's pictures, three ways (docs/bench.md, "bench/pictures.sh"):
#  walk   a full walk of the mock's 300,000 records with every record's picture loaded and judged (image_loads),
#         next to the same walk without pictures (--images none): wall time, requests and the suite's peak RSS
#         of each, the ratio of the times, PASS/MISS for the RSS target (under 64 MiB);
#  nginx  every picture type against nginx serving the very same bytes as files: --distinct records of each type
#         (so no memo of recent answers carries it), asked round robin by wrk at 32 connections and at 1, the
#         servers pinned to one core and wrk to the other, rounds interleaved; req/s, the ratio and PASS/MISS
#         (target: at least 1.0x nginx);
#  sized  a picture of its file's size (--sized-pictures, --sized-mib MiB) against nginx sending the same file:
#         bytes a second at 1 connection, the ratio and PASS/MISS (target: at least 0.5x nginx).
# Exit 0 also on a miss; 2 when the setup is broken, a server answers other bytes, or the suite fails a rule.
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
DISTINCT=20000
DURATION=3
ROUNDS=3
SIZED_MIB=64
ONLY="walk,nginx,sized"
TYPES="png,jpg,gif,bmp,svg,ico,tif,webp"
SERVER_CPU=0
CLIENT_CPU=1

usage() {
  cat <<USAGE
usage: bench/pictures.sh [--only walk,nginx,sized] [--records N] [--walk-limit N] [--concurrency N]
                         [--distinct N] [--types png,jpg,...] [--duration S] [--rounds N] [--sized-mib N] [--no-build]
  --only         the parts to run (default $ONLY)
  --records      walk: size of the mock's collection (default $RECORDS)
  --walk-limit   walk: records a walk page (default $LIMIT)
  --concurrency  walk: the suite's --concurrency: pages in flight, and threads loading pictures (default $CONCURRENCY)
  --distinct     nginx: distinct records of each type, asked round robin (default $DISTINCT)
  --types        nginx: the types, by extension (default $TYPES)
  --duration     nginx, sized: seconds a wrk run (default $DURATION)
  --rounds       nginx, sized: interleaved rounds (default $ROUNDS)
  --sized-mib    sized: the picture's file_size in MiB (default $SIZED_MIB)
  --no-build     use the binaries already in build/release
USAGE
}

while (($#)); do
  case $1 in
    --only) ONLY=$2; shift 2 ;;
    --records) RECORDS=$2; shift 2 ;;
    --walk-limit) LIMIT=$2; shift 2 ;;
    --concurrency) CONCURRENCY=$2; shift 2 ;;
    --distinct) DISTINCT=$2; shift 2 ;;
    --types) TYPES=$2; shift 2 ;;
    --duration) DURATION=$2; shift 2 ;;
    --rounds) ROUNDS=$2; shift 2 ;;
    --sized-mib) SIZED_MIB=$2; shift 2 ;;
    --no-build) BUILD=false; shift ;;
    -h | --help) usage; exit 0 ;;
    *) usage >&2; exit 2 ;;
  esac
done

NGINX_TEMPLATE="$here/nginx-files.conf.in"
NGINX_WORKERS=1
PAGE_PATH=/  # launch_nginx's; nginx-files.conf.in serves every file under www/
CLK_TCK=$(getconf CLK_TCK)
BENCH_TMP=$(mktemp -d /tmp/entimg-pictures-bench.XXXXXX)
# shellcheck source=bench/lib.sh
source "$here/lib.sh"  # log, die, cleanup, start_mock, measure, paired_ratio, ratio, verdict
trap cleanup EXIT
trap 'exit 130' INT TERM
whole_number --records "$RECORDS" 1
whole_number --walk-limit "$LIMIT" 1 10000
whole_number --concurrency "$CONCURRENCY" 1 64
whole_number --distinct "$DISTINCT" 1 1000000
whole_number --duration "$DURATION" 1 60
whole_number --rounds "$ROUNDS" 1 20
whole_number --sized-mib "$SIZED_MIB" 1 65536
[[ -x /usr/bin/time ]] || die "/usr/bin/time not found (ci/setup.sh installs it)"
part() { [[ ,$ONLY, == *,$1,* ]]; }

$BUILD && build_release entities-images-contract entities-images-mock
[[ -x $MOCK ]] || die "no mock binary in build/release (run without --no-build)"
declare -a SUMMARY=()

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

walk_part() {
  [[ -x $SUITE ]] || die "no suite binary in build/release (run without --no-build)"
  start_mock "$RECORDS"
  BASE="http://127.0.0.1:$MOCK_PORT"
  echo "== walk: full walk of $RECORDS records (--walk-limit $LIMIT, --concurrency $CONCURRENCY) with every picture" \
    "and without"
  walk none plain
  local plain_s=$WALK_S plain_requests=$WALK_REQUESTS plain_rss=$WALK_RSS_KB
  walk all pictures
  echo "  without pictures: ${plain_s} s, $plain_requests requests, peak RSS $(fmt_mib "$plain_rss")"
  echo "  every picture:    ${WALK_S} s, $WALK_REQUESTS requests (${WALK_PICTURES:-0} pictures loaded), peak RSS" \
    "$(fmt_mib "$WALK_RSS_KB")"
  echo "  pictures/plain time: $(ratio "$WALK_S" "$plain_s"); pictures a second:" \
    "$(awk -v n="${WALK_PICTURES:-0}" -v s="$WALK_S" 'BEGIN { printf "%.0f", (s > 0 ? n / s : 0) }')"
  local rss_mib
  rss_mib=$(awk -v k="$WALK_RSS_KB" 'BEGIN { printf "%.1f", k / 1024 }')
  SUMMARY+=("$(printf '  %-52s %8s  %-6s %s' "the suite's peak RSS with every picture (MiB)" "$rss_mib" "< $RSS_TARGET_MIB" \
    "$(verdict "$rss_mib" "<" "$RSS_TARGET_MIB")")")
  stop_pid "$MOCK_PID"
}

# dataset_of FILE TYPES COUNT SIZE: COUNT records of each type (by extension), ids from 1, file_size SIZE.
dataset_of() {
  python3 - "$2" "$3" "$4" >"$1" <<'PY'
import json, sys
mime = {"png": "image/png", "jpg": "image/jpeg", "gif": "image/gif", "bmp": "image/bmp", "svg": "image/svg+xml",
        "ico": "image/vnd.microsoft.icon", "tif": "image/tiff", "webp": "image/webp"}
types, count, size = sys.argv[1].split(","), int(sys.argv[2]), int(sys.argv[3])
n = 0
for ext in types:
    for _ in range(count):
        n += 1
        uuid = "%08x-4444-4444-8444-%012x" % (n, n)
        print(json.dumps({"id": n, "image": "", "file": f"filer_public/{uuid[:2]}/{uuid[2:4]}/{uuid}/p{n}.{ext}",
                          "original_filename": f"p{n}.{ext}", "file_size": size, "author": "", "name": "",
                          "default_caption": "", "alt": "", "description": "", "subject_location": "",
                          "mime_type": mime[ext], "order": 0, "key": None, "entity": 1 + n % 50}))
PY
}

# fetch_to BASE PATHS DIR: every path of the file PATHS from BASE into DIR + path, over one curl process.
fetch_to() {
  awk -v base="$1" -v dir="$3" '{ printf "url = \"%s%s\"\noutput = \"%s%s\"\n", base, $0, dir, $0 }' "$2" \
    >"$BENCH_TMP/fetch.curl"
  curl -sS --fail --create-dirs --config "$BENCH_TMP/fetch.curl" || die "curl could not fetch every picture from $1"
}

# same_as_files BASE PATHS N: the first N paths answered by BASE as the files in www hold them.
same_as_files() {
  local path
  head -n "$3" "$2" >"$BENCH_TMP/sample.txt"
  rm -rf "$BENCH_TMP/check"
  fetch_to "$1" "$BENCH_TMP/sample.txt" "$BENCH_TMP/check"
  while read -r path; do
    cmp -s "$BENCH_TMP/check$path" "$BENCH_TMP/nginx/www$path" || die "$1 answers other bytes than the files at $path"
  done <"$BENCH_TMP/sample.txt"
}

# compare_rounds KEY_A PIDS_A URL_A KEY_B PIDS_B URL_B CONNS: interleaved rounds into RES, the first alternating.
compare_rounds() {
  local r
  for ((r = 1; r <= ROUNDS; r++)); do
    if ((r % 2)); then
      one_side "$1" "$2" "$3" "$7" "$r"
      one_side "$4" "$5" "$6" "$7" "$r"
    else
      one_side "$4" "$5" "$6" "$7" "$r"
      one_side "$1" "$2" "$3" "$7" "$r"
    fi
  done
}
one_side() {
  local pids
  read -ra pids <<<"$2"
  measure "$1" "$3" "$4" "${pids[@]}"
  RES[$1,$4,$5]=$MEASURED
}

nginx_part() {
  echo "== pictures vs nginx: $DISTINCT distinct records of each type ($TYPES), round robin, wrk -t1;" \
    "servers on core $SERVER_CPU (nginx: 1 worker), wrk on core $CLIENT_CPU; $ROUNDS round(s) x ${DURATION}s"
  IFS=, read -ra types <<<"$TYPES"
  dataset_of "$BENCH_TMP/pictures.jsonl" "$TYPES" "$DISTINCT" 1000
  PIN_SERVER="taskset -c $SERVER_CPU" PIN_CLIENT="taskset -c $CLIENT_CPU" WRK_THREADS=1
  MOCK_EXTRA="--dataset $BENCH_TMP/pictures.jsonl" start_mock ""
  local mock_pid=$MOCK_PID mock_base="http://127.0.0.1:$MOCK_PORT" i=0 type
  printf '  %-5s %7s %5s %10s %10s %6s %6s %7s  %s\n' type bytes conns 'mock req/s' 'nginx req/s' ratio \
    'cpu m' 'cpu n' result
  for type in "${types[@]}"; do
    local paths="$BENCH_TMP/paths-$type.txt"
    awk -v from=$((i * DISTINCT + 1)) -v n="$DISTINCT" -v ext="$type" 'BEGIN { for (k = from; k < from + n; k++) {
      u = sprintf("%08x-4444-4444-8444-%012x", k, k)
      printf "/media/filer_public/%s/%s/%s/p%d.%s\n", substr(u, 1, 2), substr(u, 3, 2), u, k, ext } }' >"$paths"
    i=$((i + 1))
    rm -rf "$BENCH_TMP/nginx/www"
    fetch_to "$mock_base" "$paths" "$BENCH_TMP/nginx/www"
    launch_nginx unused "$(head -n 1 "$paths")"
    same_as_files "http://127.0.0.1:$NGINX_PORT" "$paths" 200
    local bytes nginx_pids
    bytes=$(find "$BENCH_TMP/nginx/www" -type f -printf '%s\n' | awk -v n="$DISTINCT" '{ s += $1 } END { printf "%d", s / n }')
    nginx_pids=$(server_pids "$NGINX_PID")
    WRK_OPTS=(-s "$here/pages.lua") WRK_SCRIPT_ARGS=("$paths")
    DURATION=1 measure warm "$mock_base/" 32 "$mock_pid"
    DURATION=1 measure warm "http://127.0.0.1:$NGINX_PORT/" 32 $nginx_pids
    local conns
    for conns in 32 1; do
      compare_rounds "m_$type" "$mock_pid" "$mock_base/" "n_$type" "$nginx_pids" "http://127.0.0.1:$NGINX_PORT/" \
        "$conns"
      local r_rps errors result
      r_rps=$(paired_ratio "m_$type" "n_$type" "$conns" 1)
      errors=$(($(sum "m_$type" "$conns" 5) + $(sum "m_$type" "$conns" 6) + $(sum "n_$type" "$conns" 5) +
        $(sum "n_$type" "$conns" 6)))
      result=$(verdict "$r_rps" ">=" 1.0)
      ((errors == 0)) || result="MISS ($errors errors)"
      printf '  %-5s %7s %5s %10.0f %10.0f %6s %5s%% %5s%%  %s\n' "$type" "$bytes" "$conns" "$(med "m_$type" "$conns" 1)" \
        "$(med "n_$type" "$conns" 1)" "$r_rps" "$(med "m_$type" "$conns" 7)" "$(med "n_$type" "$conns" 7)" "$result"
      SUMMARY+=("$(printf '  %-52s %8s  %-6s %s' "req/s mock/nginx, $type, $conns conn(s)" "$r_rps" ">= 1.0" "$result")")
    done
    unset WRK_OPTS WRK_SCRIPT_ARGS
    stop_pid "$NGINX_PID"
  done
  echo "  (medians of $ROUNDS rounds; cpu m/n = the mock's / nginx's CPU, 100% = its one core; bytes = a picture's)"
  stop_pid "$mock_pid"
  unset PIN_SERVER PIN_CLIENT WRK_THREADS
  rm -rf "$BENCH_TMP/nginx/www"
}

sized_part() {
  local size=$((SIZED_MIB * 1048576))
  echo "== a sized picture (--sized-pictures, a PNG of $SIZED_MIB MiB) vs nginx sending the same file, 1 connection;" \
    "servers on core $SERVER_CPU, wrk on core $CLIENT_CPU; $ROUNDS round(s) x ${DURATION}s"
  dataset_of "$BENCH_TMP/sized.jsonl" png 1 "$size"
  PIN_SERVER="taskset -c $SERVER_CPU" PIN_CLIENT="taskset -c $CLIENT_CPU" WRK_THREADS=1
  MOCK_EXTRA="--dataset $BENCH_TMP/sized.jsonl --sized-pictures" start_mock ""
  local mock_pid=$MOCK_PID path="/media/filer_public/00/00/00000001-4444-4444-8444-000000000001/p1.png"
  echo "$path" >"$BENCH_TMP/sized-path.txt"
  rm -rf "$BENCH_TMP/nginx/www"
  fetch_to "http://127.0.0.1:$MOCK_PORT" "$BENCH_TMP/sized-path.txt" "$BENCH_TMP/nginx/www"
  [[ $(stat -c %s "$BENCH_TMP/nginx/www$path") == "$size" ]] || die "the sized picture is not $size bytes"
  launch_nginx unused "$path"
  same_as_files "http://127.0.0.1:$NGINX_PORT" "$BENCH_TMP/sized-path.txt" 1
  local nginx_pids
  nginx_pids=$(server_pids "$NGINX_PID")
  compare_rounds sized_m "$mock_pid" "http://127.0.0.1:$MOCK_PORT$path" sized_n "$nginx_pids" \
    "http://127.0.0.1:$NGINX_PORT$path" 1
  local m n r
  # bytes a second: the pictures received whole in a run (wrk's field 4) times their size, over the run
  m=$(awk -v q="$(med sized_m 1 4)" -v s="$size" -v d="$DURATION" 'BEGIN { printf "%.0f", q * s / d }')
  n=$(awk -v q="$(med sized_n 1 4)" -v s="$size" -v d="$DURATION" 'BEGIN { printf "%.0f", q * s / d }')
  r=$(paired_ratio sized_m sized_n 1 4)
  echo "  mock $(med sized_m 1 4) pictures a run = $(awk -v b="$m" 'BEGIN { printf "%.0f MB/s", b / 1e6 }') (cpu" \
    "$(med sized_m 1 7)%), nginx $(med sized_n 1 4) = $(awk -v b="$n" 'BEGIN { printf "%.0f MB/s", b / 1e6 }')" \
    "(cpu $(med sized_n 1 7)%): ratio $r (medians of $ROUNDS rounds)"
  local result errors
  result=$(verdict "$r" ">=" 0.5)
  errors=$(($(sum sized_m 1 5) + $(sum sized_m 1 6) + $(sum sized_n 1 5) + $(sum sized_n 1 6)))
  ((errors == 0)) || result="MISS ($errors errors)"
  SUMMARY+=("$(printf '  %-52s %8s  %-6s %s' "bytes/s mock/nginx, a $SIZED_MIB MiB sized picture" "$r" ">= 0.5" "$result")")
  stop_pid "$NGINX_PID"
  stop_pid "$mock_pid"
  unset PIN_SERVER PIN_CLIENT WRK_THREADS
}

declare -A RES
echo "bench: pictures ($ONLY), seed $SEED; $(nproc) cores, $(uname -r), $(nginx -v 2>&1 | sed 's/.*: //')"
part walk && walk_part
part nginx && nginx_part
part sized && sized_part
echo
echo "== SUMMARY ($(date -u +%Y-%m-%dT%H:%MZ); ratios are medians of per-round ratios measured in this run)"
printf '  %-52s %8s  %-6s %s\n' measure value target result
printf '%s\n' "${SUMMARY[@]}"
