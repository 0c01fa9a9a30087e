#!/usr/bin/env bash
# The page mix of issue 20: a frontend scrolling through the collection, not one URL asked again and
# again. 4,000 distinct pages (seeded random offsets, limit=12), asked round robin by `wrk -t1` pinned to
# one core; the mock pinned to the other, with its answer memo (the default) and without it
# (--memo-bytes 0); nginx, one worker pinned to the same core as the mock, serving the very same bytes
# as files (try_files /p/$arg_offset.json). Three servers a round, the first one rotating, at 32
# connections and at 1; prints medians, the ratios against nginx (medians of per-round ratios), then
# the mock's peak RSS serving the mix over 10,000,000 records. Exit 0 also on a miss; 2 when the setup is
# broken (no binary, a server answering other bytes). See docs/bench.md.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)

MOCK="$root/build/release/mock/entities-images-mock"
DURATION=5
ROUNDS=3
PAGES=4000
RECORDS=300000
BIG_RECORDS=10000000
SEED=1
SERVER_CPU=0
CLIENT_CPU=1
BUILD=true
PAGE_PATH=/edw/api/entities-images/
HOST=pages.test  # every server gets this Host, so links and images are the same bytes from each

usage() {
  cat <<EOF
usage: bench/pages.sh [--duration SECONDS] [--rounds N] [--pages N] [--seed S] [--quick] [--no-build]
                      [--mock PATH] [--big-records N] [--server-cpu N] [--client-cpu N]
  --duration     seconds per wrk run (default $DURATION)
  --rounds       interleaved rounds (default $ROUNDS)
  --pages        distinct pages in the mix (default $PAGES)
  --seed         seed of the offsets and of the mock's collection (default $SEED)
  --quick        smoke run: 1 s runs, 1 round, 10x fewer records for the RSS step
  --no-build     use build/release as it is
  --mock         mock binary (default build/release/mock/entities-images-mock)
  --big-records  collection size of the RSS step (default $BIG_RECORDS)
  --server-cpu, --client-cpu   the cores the servers and wrk are pinned to (default $SERVER_CPU, $CLIENT_CPU)
EOF
}

while (($#)); do
  case $1 in
    --duration) DURATION=$2; shift 2 ;;
    --rounds) ROUNDS=$2; shift 2 ;;
    --pages) PAGES=$2; shift 2 ;;
    --seed) SEED=$2; shift 2 ;;
    --quick) DURATION=1; ROUNDS=1; BIG_RECORDS=1000000; shift ;;
    --no-build) BUILD=false; shift ;;
    --mock) MOCK=$2; BUILD=false; shift 2 ;;
    --big-records) BIG_RECORDS=$2; shift 2 ;;
    --server-cpu) SERVER_CPU=$2; shift 2 ;;
    --client-cpu) CLIENT_CPU=$2; shift 2 ;;
    -h | --help) usage; exit 0 ;;
    *) usage >&2; exit 2 ;;
  esac
done

NGINX_TEMPLATE="$here/nginx.conf.in"
NGINX_WORKERS=1
CLK_TCK=$(getconf CLK_TCK)
BENCH_TMP=$(mktemp -d /tmp/entimg-pages-bench.XXXXXX)
# shellcheck source=bench/lib.sh
source "$here/lib.sh"
trap cleanup EXIT
trap 'exit 130' INT TERM
whole_number --duration "$DURATION" 1 60
whole_number --rounds "$ROUNDS" 1 20
whole_number --pages "$PAGES" 1 20000
whole_number --big-records "$BIG_RECORDS" "$PAGES"

for tool in wrk nginx curl python3 taskset cmp; do
  command -v "$tool" >/dev/null || die "$tool not found (ci/setup.sh installs it)"
done
$BUILD && build_release entities-images-mock
[[ -x $MOCK ]] || die "no mock binary at $MOCK (run without --no-build)"
PIN_SERVER="taskset -c $SERVER_CPU"
PIN_CLIENT="taskset -c $CLIENT_CPU"
WRK_THREADS=1
if ! $PIN_SERVER true 2>/dev/null || ! $PIN_CLIENT true 2>/dev/null; then
  die "cannot pin to cores $SERVER_CPU and $CLIENT_CPU"
fi

echo "bench: pages mix, seed $SEED, $PAGES pages of limit=12 over $RECORDS records, $ROUNDS round(s) x ${DURATION}s" \
  "per wrk run, servers on core $SERVER_CPU, wrk -t1 on core $CLIENT_CPU, $(nproc) cores, $(uname -r)," \
  "$(wrk --version 2>&1 | head -n 1 | awk '{print $1, $2}'), $(nginx -v 2>&1 | sed 's/.*: //')"

# paths_file RECORDS FILE: PAGES distinct offsets drawn with SEED, in the drawn order, as request paths.
paths_file() {
  python3 - "$1" "$PAGES" "$SEED" "$PAGE_PATH" >"$2" <<'PY'
import random, sys
records, pages, seed, path = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
for offset in random.Random(seed).sample(range(max(records - 11, 1)), pages):
    print(f"{path}?limit=12&offset={offset}")
PY
}

# fetch_all BASE DIR: every path of $PATHS from BASE into DIR/<offset>.json over one curl process.
fetch_all() {
  mkdir -p "$2"
  awk -v base="$1" -v dir="$2" -v host="$HOST" '{ o = $0; sub(/.*offset=/, "", o)
    printf "url = \"%s%s\"\noutput = \"%s/%s.json\"\nheader = \"Host: %s\"\n", base, $0, dir, o, host }' \
    "$PATHS" >"$BENCH_TMP/fetch.curl"
  curl -sS --fail --config "$BENCH_TMP/fetch.curl" || die "curl could not fetch every page from $1"
}

PATHS="$BENCH_TMP/paths.txt"
paths_file "$RECORDS" "$PATHS"
WRK_OPTS=(-H "Host: $HOST" -s "$here/pages.lua")
WRK_SCRIPT_ARGS=("$PATHS")

start_mock "$RECORDS"
memo_pid=$MOCK_PID memo_url="http://127.0.0.1:$MOCK_PORT$PAGE_PATH"
MOCK_EXTRA="--memo-bytes 0" start_mock "$RECORDS"
computed_pid=$MOCK_PID computed_url="http://127.0.0.1:$MOCK_PORT$PAGE_PATH"
fetch_all "http://127.0.0.1:$MOCK_PORT" "$BENCH_TMP/nginx/www/p"
# shellcheck disable=SC2016 # nginx's variable, for nginx to expand
launch_nginx '/p/$arg_offset.json' "$PAGE_PATH?offset=$(head -n 1 "$PATHS" | sed 's/.*offset=//')"
nginx_url="http://127.0.0.1:$NGINX_PORT$PAGE_PATH"
# same_bytes NAME BASE: BASE answers every page of the mix as the mock computing every answer did.
same_bytes() {
  fetch_all "$2" "$BENCH_TMP/check-$1"
  diff -rq "$BENCH_TMP/nginx/www/p" "$BENCH_TMP/check-$1" >/dev/null ||
    die "$1 does not answer the same bytes as the mock computing every page"
}
same_bytes nginx "http://127.0.0.1:$NGINX_PORT"
same_bytes memo "${memo_url%"$PAGE_PATH"}"
bytes=$(cat "$BENCH_TMP/nginx/www/p/"*.json | wc -c)
echo "  $PAGES pages, $((bytes / PAGES)) bytes a body on average; the three servers answer the same bytes"
echo "  mock threads: $(thread_count "$memo_pid") (memo), $(thread_count "$computed_pid") (--memo-bytes 0);" \
  "nginx pids $(server_pids "$NGINX_PID")"

declare -A RES
SERVERS=(nginx memo computed)
declare -A URL=([nginx]=$nginx_url [memo]=$memo_url [computed]=$computed_url)
declare -A PIDS=([nginx]="$(server_pids "$NGINX_PID")" [memo]=$memo_pid [computed]=$computed_pid)
for key in "${SERVERS[@]}"; do
  read -ra pids <<<"${PIDS[$key]}"
  DURATION=1 measure warm "${URL[$key]}" 32 "${pids[@]}"  # untimed: caches, the memo, the page cache
  [[ ${MEASURED%% *} != 0 ]] || die "wrk got no answer from $key: $(cat "$BENCH_TMP"/wrk-warm-* | tail -n 3)"
done
for conns in 32 1; do
  for ((r = 1; r <= ROUNDS; r++)); do
    line="  round $r, $conns conn(s):"
    for ((k = 0; k < ${#SERVERS[@]}; k++)); do
      key=${SERVERS[$(((k + r - 1) % ${#SERVERS[@]}))]}
      read -ra pids <<<"${PIDS[$key]}"
      measure "$key" "${URL[$key]}" "$conns" "${pids[@]}"
      RES[$key,$conns,$r]=$MEASURED
      line+=" $key ${MEASURED%% *}"
    done
    log "$line req/s"
  done
done

echo
printf '  %-10s %5s %10s %9s %9s %6s %7s\n' server conns 'req/s' p50 p99 cpu errors
for conns in 32 1; do
  for key in "${SERVERS[@]}"; do
    printf '  %-10s %5s %10.0f %9s %9s %5s%% %7s\n' "$key" "$conns" "$(med "$key" "$conns" 1)" \
      "$(fmt_us "$(med "$key" "$conns" 2)")" "$(fmt_us "$(med "$key" "$conns" 3)")" "$(med "$key" "$conns" 7)" \
      "$(($(sum "$key" "$conns" 5) + $(sum "$key" "$conns" 6)))"
  done
done
echo "  (medians of $ROUNDS rounds; memo = the mock's defaults, computed = --memo-bytes 0; cpu = the server's,"
echo "   100% = its one core; errors = wrk socket errors + non-2xx answers over all rounds)"
echo "  wrk on core $CLIENT_CPU: at 1 connection the client's own time is part of every round trip"
computed32=$(paired_ratio computed nginx 32 1) computed1=$(paired_ratio computed nginx 1 1)
memo32=$(paired_ratio memo nginx 32 1) memo1=$(paired_ratio memo nginx 1 1)
memo_vs32=$(paired_ratio memo computed 32 1) memo_vs1=$(paired_ratio memo computed 1 1)
stop_pid "$NGINX_PID"
stop_pid "$memo_pid"
stop_pid "$computed_pid"

# The memory bound: the mock with its defaults serving the mix over the large collection.
echo
echo "== peak RSS: the mock's defaults, $BIG_RECORDS records, the mix ($PAGES pages) at 32 connections for ${DURATION}s"
paths_file "$BIG_RECORDS" "$PATHS"
start_mock "$BIG_RECORDS"
big_pid=$MOCK_PID
measure big "http://127.0.0.1:$MOCK_PORT$PAGE_PATH" 32 "$big_pid"
big_rss=$(peak_rss_kb "$big_pid")
echo "  ${MEASURED%% *} req/s; peak RSS $(fmt_mib "$big_rss")"
stop_pid "$big_pid"
big_mib=$(awk -v k="$big_rss" 'BEGIN { printf "%.1f", k / 1024 }')

echo
echo "== SUMMARY ($(date -u +%Y-%m-%dT%H:%MZ); ratios are medians of per-round ratios measured in this run)"
target() { printf '  %-52s %8s  %-6s %s\n' "$1" "$2" "$3 $4" "$(verdict "$2" "$3" "$4")"; }
printf '  %-52s %8s  %-6s %s\n' measure value target result
target "req/s computed/nginx, 32 connections" "$computed32" ">=" 0.8
target "req/s computed/nginx, 1 connection" "$computed1" ">=" 0.95
target "req/s memo (default)/nginx, 32 connections" "$memo32" ">=" 0.8
target "req/s memo (default)/nginx, 1 connection" "$memo1" ">=" 0.95
target "req/s memo (default)/computed, 32 connections" "$memo_vs32" ">=" 1.0
target "req/s memo (default)/computed, 1 connection" "$memo_vs1" ">=" 1.0
target "peak RSS at $BIG_RECORDS records (MiB)" "$big_mib" "<=" 40
echo "  context: req/s at 32 connections nginx $(med nginx 32 1), memo $(med memo 32 1), computed $(med computed 32 1);" \
  "at 1 nginx $(med nginx 1 1), memo $(med memo 1 1), computed $(med computed 1 1)"
