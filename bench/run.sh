#!/usr/bin/env bash
# Benchmarks the mock against nginx serving the same page bytes, interleaved in one run, and prints
# figures, ratios, the targets and PASS/MISS. A missed target does not fail the script; a broken
# setup (no binary, no answer, different bytes) does, with exit code 2. See docs/bench.md.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)

MOCK="$root/build/release/mock/entities-images-mock"
DURATION=5
ROUNDS=3
STARTS=5
BIG_RECORDS=10000000
SMALL_RECORDS=300000
SEED=1
NGINX_WORKERS=auto
PAGE_PATH=/edw/api/entities-images/
PAGE_QUERY='?offset=120000'
DEEP_OFFSET=

usage() {
  cat <<EOF
usage: bench/run.sh [--duration SECONDS] [--rounds N] [--quick] [--mock PATH] [--nginx-workers N|auto]
                    [--big-records N] [--deep-offset N] [--starts N] [--seed S]
  --duration     seconds per wrk run (default $DURATION)
  --rounds       interleaved rounds per comparison, mock and nginx alternating (default $ROUNDS)
  --quick        smoke run: 1 s runs, 1 round, 3 starts
  --mock         mock binary (default build/release/mock/entities-images-mock)
  --nginx-workers  nginx worker_processes (default auto: one per core, like the mock's thread pool)
  --big-records  size of the large collection (default $BIG_RECORDS)
  --deep-offset  offset of the deep page (default: big records - 1000, i.e. 9999000)
  --starts       launches timed for the start-to-first-answer figure (default $STARTS)
EOF
}

while (($#)); do
  case $1 in
    --duration) DURATION=$2; shift 2 ;;
    --rounds) ROUNDS=$2; shift 2 ;;
    --quick) DURATION=1; ROUNDS=1; STARTS=3; shift ;;
    --mock) MOCK=$2; shift 2 ;;
    --nginx-workers) NGINX_WORKERS=$2; shift 2 ;;
    --big-records) BIG_RECORDS=$2; shift 2 ;;
    --deep-offset) DEEP_OFFSET=$2; shift 2 ;;
    --starts) STARTS=$2; shift 2 ;;
    --seed) SEED=$2; shift 2 ;;
    -h | --help) usage; exit 0 ;;
    *) usage >&2; exit 2 ;;
  esac
done
DEEP_QUERY="?offset=${DEEP_OFFSET:-$((BIG_RECORDS > 1000 ? BIG_RECORDS - 1000 : 0))}"

NGINX_TEMPLATE="$here/nginx.conf.in"
CLK_TCK=$(getconf CLK_TCK)
BENCH_TMP=$(mktemp -d /tmp/entimg-bench.XXXXXX)
# shellcheck source=bench/lib.sh
source "$here/lib.sh"
trap cleanup EXIT
trap 'exit 130' INT TERM
whole_number --duration "$DURATION" 1 60
whole_number --rounds "$ROUNDS" 1 20

for tool in wrk nginx curl python3; do command -v "$tool" >/dev/null || die "$tool not found (ci/setup.sh installs it)"; done
[[ -x $MOCK ]] || die "no mock binary at $MOCK (cmake --preset release && cmake --build --preset release)"

echo "bench: seed $SEED, $ROUNDS round(s) x ${DURATION}s per wrk run, nginx worker_processes $NGINX_WORKERS," \
  "$(nproc) cores, $(uname -r), $(wrk --version 2>&1 | head -n 1 | awk '{print $1, $2}'), $(nginx -v 2>&1 | sed 's/.*: //')"

# Runs ROUNDS interleaved rounds of wrk against two targets, alternating which goes first.
# compare KEY_A URL_A PIDS_A KEY_B URL_B PIDS_B CONNS: fills RES[key,conns,round].
declare -A RES
compare() {
  local ka=$1 ua=$2 kb=$4 ub=$5 conns=$7 r pa pb
  read -ra pa <<<"$3"
  read -ra pb <<<"$6"
  for ((r = 1; r <= ROUNDS; r++)); do
    if ((r % 2)); then
      measure "$ka" "$ua" "$conns" "${pa[@]}"; RES[$ka,$conns,$r]=$MEASURED
      measure "$kb" "$ub" "$conns" "${pb[@]}"; RES[$kb,$conns,$r]=$MEASURED
    else
      measure "$kb" "$ub" "$conns" "${pb[@]}"; RES[$kb,$conns,$r]=$MEASURED
      measure "$ka" "$ua" "$conns" "${pa[@]}"; RES[$ka,$conns,$r]=$MEASURED
    fi
    log "  round $r, $conns conn(s): $ka ${RES[$ka,$conns,$r]%% *} req/s, $kb ${RES[$kb,$conns,$r]%% *} req/s"
  done
}

row() {
  printf '  %-12s %5s %10.0f %9s %9s %6s%% %8s %7s %9s\n' "$1" "$2" "$(med "$1" "$2" 1)" \
    "$(fmt_us "$(med "$1" "$2" 2)")" "$(fmt_us "$(med "$1" "$2" 3)")" "$(med "$1" "$2" 7)" \
    "$(field "$1" "$2" 8 | head -n 1)" "$(($(sum "$1" "$2" 5) + $(sum "$1" "$2" 6)))" "$(sum "$1" "$2" 9)"
}
header() {
  printf '  %-12s %5s %10s %9s %9s %7s %8s %7s %9s\n' server conns 'req/s' p50 p99 cpu req/conn errors overflows
}
legend() {
  echo "  (medians of $ROUNDS rounds; cpu = server CPU during the run, 200% = both cores; req/conn = requests per"
  echo "   accepted TCP connection in round 1; errors = wrk socket errors + non-2xx answers, all rounds;"
  echo "   overflows = handshakes dropped on a full accept queue, all rounds; req/conn and overflows are"
  echo "   kernel counters for the whole network namespace, so other processes' traffic can creep in)"
}

# 1. The mock on the default collection, nginx on the bytes it answers with.
echo
echo "== 1. mock ($SMALL_RECORDS records) vs nginx, same bytes: GET $PAGE_PATH$PAGE_QUERY"
start_mock "$SMALL_RECORDS"
small_pid=$MOCK_PID
small_url="http://127.0.0.1:$MOCK_PORT$PAGE_PATH$PAGE_QUERY"
curl -sS --fail -D "$BENCH_TMP/mock.headers" -o "$BENCH_TMP/page.json" "$small_url" ||
  die "the mock did not answer 200 at $small_url"
start_nginx "$BENCH_TMP/page.json"
nginx_url="http://127.0.0.1:$NGINX_PORT$PAGE_PATH$PAGE_QUERY"
curl -sS --fail -D "$BENCH_TMP/nginx.headers" -o "$BENCH_TMP/nginx.json" "$nginx_url"
cmp -s "$BENCH_TMP/page.json" "$BENCH_TMP/nginx.json" || die "nginx serves different bytes than the mock"
echo "  body $(wc -c <"$BENCH_TMP/page.json") bytes; response headers: mock $(wc -c <"$BENCH_TMP/mock.headers")" \
  "bytes, nginx $(wc -c <"$BENCH_TMP/nginx.headers") bytes"
dups=$(duplicate_headers "$BENCH_TMP/mock.headers")
[[ -z $dups ]] || echo "  WARNING: the mock repeats header(s): $dups- strict HTTP parsers (wrk's http-parser," \
  "Node's llhttp) reject such answers, so wrk may count read errors instead of requests"
echo "  keep-alive (curl, sequential): mock $(keepalive_probe "$small_url"); nginx $(keepalive_probe "$nginx_url")"
nginx_pids=$(server_pids "$NGINX_PID")
echo "  processes: mock pid $small_pid with $(thread_count "$small_pid") threads; nginx pids $nginx_pids"
echo "  listen backlog (accept queue asked for): mock $(listen_backlog "$MOCK_PORT"), nginx $(listen_backlog "$NGINX_PORT")"
warm "$small_url"
warm "$nginx_url"
for conns in 1 32; do compare mock "$small_url" "$small_pid" nginx "$nginx_url" "$nginx_pids" "$conns"; done
small_rss=$(peak_rss_kb "$small_pid")
read -ra nginx_pid_list <<<"$nginx_pids"
nginx_rss=$(peak_rss_kb "${nginx_pid_list[@]}")
small_threads=$(thread_count "$small_pid")
header
for conns in 1 32; do row mock "$conns"; row nginx "$conns"; done
legend
echo "  peak RSS after load: mock $(fmt_mib "$small_rss") ($small_threads threads), nginx $(fmt_mib "$nginx_rss")" \
  "(sum over ${#nginx_pid_list[@]} processes)"
rps1=$(paired_ratio mock nginx 1 1)
rps32=$(paired_ratio mock nginx 32 1)
p99_1=$(paired_ratio mock nginx 1 3)
p99_32=$(paired_ratio mock nginx 32 3)
p50_1=$(paired_ratio mock nginx 1 2)
p50_32=$(paired_ratio mock nginx 32 2)
stop_pid "$NGINX_PID"
# 1b. The figure issue 10 quotes: nginx with one worker, driven (like the mock) by one wrk thread.
workers_asked=$NGINX_WORKERS
NGINX_WORKERS=1
start_nginx "$BENCH_TMP/page.json"
NGINX_WORKERS=$workers_asked
one_url="http://127.0.0.1:$NGINX_PORT$PAGE_PATH$PAGE_QUERY"
one_pids=$(server_pids "$NGINX_PID")
warm "$one_url"
WRK_THREADS=1 compare mock_1t "$small_url" "$small_pid" nginx_1w "$one_url" "$one_pids" 32
echo "  one wrk thread, 32 connections: mock $(med mock_1t 32 1) req/s, nginx with one worker" \
  "$(med nginx_1w 32 1) req/s (ratio $(paired_ratio mock_1t nginx_1w 32 1))"
one_worker_ratio=$(paired_ratio mock_1t nginx_1w 32 1)
stop_pid "$NGINX_PID"
stop_pid "$small_pid"
# 1c. The same page computed on every request (--memo-bytes 0): what the service itself costs.
MOCK_EXTRA="--memo-bytes 0" start_mock "$SMALL_RECORDS"
computed_pid=$MOCK_PID
computed_url="http://127.0.0.1:$MOCK_PORT$PAGE_PATH$PAGE_QUERY"
start_nginx "$BENCH_TMP/page.json"
nginx_url="http://127.0.0.1:$NGINX_PORT$PAGE_PATH$PAGE_QUERY"
warm "$computed_url"
for conns in 1 32; do
  compare computed "$computed_url" "$computed_pid" nginx_c "$nginx_url" "$(server_pids "$NGINX_PID")" "$conns"
done
computed1=$(paired_ratio computed nginx_c 1 1)
computed32=$(paired_ratio computed nginx_c 32 1)
echo "  every answer computed (--memo-bytes 0): mock/nginx $computed1 at 1 connection, $computed32 at 32"
stop_pid "$NGINX_PID"
stop_pid "$computed_pid"

# 2. First page vs a page near the end of the large collection.
echo
echo "== 2. mock ($BIG_RECORDS records): first page vs GET $PAGE_PATH$DEEP_QUERY, 32 connections"
# Paging cost is what this measures, so every answer is computed.
MOCK_EXTRA="--memo-bytes 0" start_mock "$BIG_RECORDS"
big_pid=$MOCK_PID
first_url="http://127.0.0.1:$MOCK_PORT$PAGE_PATH"
deep_url="http://127.0.0.1:$MOCK_PORT$PAGE_PATH$DEEP_QUERY"
for u in "$first_url" "$deep_url"; do
  [[ $(curl -s -o "$BENCH_TMP/check.json" -w '%{http_code}' "$u") == 200 ]] || die "the mock did not answer 200 at $u"
  grep -q '"results"' "$BENCH_TMP/check.json" || die "no \"results\" in the answer from $u"
done
warm "$first_url"
warm "$deep_url"
compare first "$first_url" "$big_pid" deep "$deep_url" "$big_pid" 32
big_rss=$(peak_rss_kb "$big_pid")
header
row first 32
row deep 32
echo "  peak RSS after load: $(fmt_mib "$big_rss")"
deep_rps=$(paired_ratio deep first 32 1)
deep_p99=$(paired_ratio deep first 32 3)
stop_pid "$big_pid"

# 3. Time from launch to the first 200 answer.
echo
echo "== 3. launch to first 200 answer, $STARTS launches each"
starts_small=() starts_big=()
for ((i = 1; i <= STARTS; i++)); do
  ms_to_first_200 "$SMALL_RECORDS"; starts_small+=("$READY_MS")
  ms_to_first_200 "$BIG_RECORDS"; starts_big+=("$READY_MS")
done
echo "  $SMALL_RECORDS records: ${starts_small[*]} ms"
echo "  $BIG_RECORDS records: ${starts_big[*]} ms"
numeric() { local v; for v in "$@"; do [[ $v =~ ^[0-9.]+$ ]] || return 1; done; }
ready_small=timeout ready_big=timeout
numeric "${starts_small[@]}" && ready_small=$(median "${starts_small[@]}")
numeric "${starts_big[@]}" && ready_big=$(median "${starts_big[@]}")

# 4. Targets.
rss_ratio=$(ratio "$big_rss" "$small_rss")
big_mib=$(awk -v k="$big_rss" 'BEGIN { printf "%.1f", k / 1024 }')
target() { printf '  %-46s %10s  %-9s %s\n' "$1" "$2" "$3 $4" "$(verdict "$2" "$3" "$4")"; }
ready_verdict() { verdict "$1" "<" 100; }
summary() {
  echo "bench summary ($(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, $ROUNDS x ${DURATION}s interleaved, nginx workers $NGINX_WORKERS)"
  printf '  %-46s %10s  %-9s %s\n' measure value target result
  target "req/s mock/nginx, 32 connections" "$rps32" ">=" 1.0
  target "req/s mock/nginx, 1 connection" "$rps1" ">=" 1.0
  printf '  %-46s %10s  %-9s %s\n' "req/s mock/nginx 1 worker, 1 wrk thread, 32 conns" "$one_worker_ratio" "-" "(context)"
  printf '  %-46s %10s  %-9s %s\n' "req/s computed/nginx, 1 conn (--memo-bytes 0)" "$computed1" "-" "(context)"
  printf '  %-46s %10s  %-9s %s\n' "req/s computed/nginx, 32 conns (--memo-bytes 0)" "$computed32" "-" "(context)"
  target "p99 mock/nginx, 32 connections" "$p99_32" "<=" 2
  target "p99 mock/nginx, 1 connection" "$p99_1" "<=" 2
  target "req/s deep/first page ($BIG_RECORDS records)" "$deep_rps" ">=" 0.95
  target "peak RSS at $BIG_RECORDS records (MiB)" "$big_mib" "<=" 40
  target "peak RSS $BIG_RECORDS / $SMALL_RECORDS records" "$rss_ratio" "<=" 1.1
  printf '  %-46s %10s  %-9s %s\n' "ms launch to first 200 ($SMALL_RECORDS records)" "$ready_small" "< 100" \
    "$(ready_verdict "$ready_small")"
  printf '  %-46s %10s  %-9s %s\n' "ms launch to first 200 ($BIG_RECORDS records)" "$ready_big" "< 100" \
    "$(ready_verdict "$ready_big")"
  echo "  context: p50 mock/nginx $p50_1 (1 conn), $p50_32 (32 conns); p99 deep/first $deep_p99;" \
    "mock $(med mock 32 1) req/s vs nginx $(med nginx 32 1) at 32 conns, $(med mock 1 1) vs $(med nginx 1 1) at 1;" \
    "peak RSS mock $(fmt_mib "$small_rss") / $(fmt_mib "$big_rss"), nginx $(fmt_mib "$nginx_rss");" \
    "wrk errors (socket + non-2xx, all runs): mock $(($(sum mock 1 5) + $(sum mock 1 6) + $(sum mock 32 5) + $(sum mock 32 6)))," \
    "nginx $(($(sum nginx 1 5) + $(sum nginx 1 6) + $(sum nginx 32 5) + $(sum nginx 32 6)))," \
    "big mock $(($(sum first 32 5) + $(sum first 32 6) + $(sum deep 32 5) + $(sum deep 32 6)))"
}
echo
echo "== SUMMARY (ratios are medians of per-round ratios measured in this run)"
summary
