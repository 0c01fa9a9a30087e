# Helpers for bench/run.sh: processes, measurements, arithmetic. Sourced, not run.
# Expects: root (the repository), BENCH_TMP (a temp dir), MOCK (path to the mock binary), NGINX_TEMPLATE, SEED, PAGE_PATH,
# DURATION, CLK_TCK, NGINX_WORKERS. Functions hand results back in globals (MOCK_PORT, NGINX_PORT,
# MEASURED, READY_MS), not through $(...), so that every process they start stays visible to the
# EXIT trap.
# shellcheck shell=bash disable=SC2034

STARTED_PIDS=()

log() { printf '%s\n' "$*" >&2; }
die() { log "bench: $*"; exit 2; }

# whole_number FLAG VALUE MIN [MAX]: dies saying what FLAG takes unless VALUE is a whole number from MIN to
# MAX (no MAX: any from MIN up). At most 18 digits, so bash's arithmetic cannot wrap.
whole_number() {
  local flag=$1 value=$2 min=$3 max=${4:-}
  local words="$min..$max"
  [[ -z $max ]] && words=$([[ $min == 1 ]] && echo "a positive integer" || echo "a whole number, at least $min")
  [[ $value =~ ^[0-9]{1,18}$ ]] && ((10#$value >= min)) && [[ -z $max || 10#$value -le $max ]] ||
    die "$flag must be $words"
}

# built_program REL_PATH: build/release's program at REL_PATH (under the build folder) if there is one, else
# build/dev's, else ""; for the benches that take either build's binary unless given one.
built_program() {
  local build
  for build in release dev; do
    if [[ -x $root/build/$build/$1 ]]; then
      echo "$root/build/$build/$1"
      return
    fi
  done
}

# Stops every process this script started: TERM, then KILL after 3 s.
cleanup() {
  local pid
  for pid in "${STARTED_PIDS[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${STARTED_PIDS[@]}"; do
    for _ in $(seq 30); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
  STARTED_PIDS=()
  [[ -n ${BENCH_TMP:-} && -d $BENCH_TMP ]] && rm -rf "$BENCH_TMP"
  return 0
}

# build_release TARGET...: configures and builds the release preset under the shared build lock (other
# jobs may build in this tree); dies with the log's tail on failure.
build_release() {
  (cd "$root" && flock /tmp/entimg-build.lock cmake --preset release >"$BENCH_TMP/configure.log" 2>&1) ||
    die "cmake --preset release failed: $(tail -n 20 "$BENCH_TMP/configure.log")"
  (cd "$root" && flock /tmp/entimg-build.lock cmake --build --preset release --target "$@" \
    >"$BENCH_TMP/build.log" 2>&1) || die "build failed: $(tail -n 20 "$BENCH_TMP/build.log")"
}

forget_pid() {
  local keep=() p
  for p in "${STARTED_PIDS[@]}"; do [[ $p == "$1" ]] || keep+=("$p"); done
  STARTED_PIDS=("${keep[@]}")
}

stop_pid() {
  kill -TERM "$1" 2>/dev/null || true
  for _ in $(seq 50); do kill -0 "$1" 2>/dev/null || break; sleep 0.1; done
  kill -KILL "$1" 2>/dev/null || true
  wait "$1" 2>/dev/null || true
  forget_pid "$1"
}

# A port that was free a moment ago on 127.0.0.1 (the kernel picks it).
free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

# start_mock RECORDS: sets MOCK_PID and MOCK_PORT once the mock prints its listening line ($MOCK_EXTRA: more
# flags; $PIN_SERVER: a command in front of it, e.g. "taskset -c 0"). RECORDS "": no --records (a --dataset in
# MOCK_EXTRA instead).
start_mock() {
  local records=$1 out="$BENCH_TMP/mock-$1-$RANDOM.log" deadline
  ${PIN_SERVER:-} "$MOCK" --host 127.0.0.1 --port 0 ${records:+--records "$records"} --seed "$SEED" --quiet \
    ${MOCK_EXTRA:-} >"$out" 2>&1 &
  MOCK_PID=$!
  STARTED_PIDS+=("$MOCK_PID")
  deadline=$((SECONDS + 60))
  until grep -q 'listening on http://127.0.0.1:' "$out"; do
    kill -0 "$MOCK_PID" 2>/dev/null || die "mock exited before listening: $(tail -n 5 "$out")"
    ((SECONDS < deadline)) || die "mock printed no 'listening on' line within 60 s (--records $records)"
    sleep 0.01
  done
  MOCK_PORT=$(grep -o 'listening on http://127.0.0.1:[0-9]*' "$out" | head -n 1 | sed 's/.*://')
}

# start_nginx BODY_FILE: serves the file at $PAGE_PATH; sets NGINX_PID and NGINX_PORT.
start_nginx() {
  mkdir -p "$BENCH_TMP/nginx/www"
  cp "$1" "$BENCH_TMP/nginx/www/page.json"
  launch_nginx /page.json "$PAGE_PATH"
}

# launch_nginx TRY_FILES PROBE_PATH: nginx over $BENCH_TMP/nginx/www, answering $PAGE_PATH with
# `try_files TRY_FILES =404` ($PIN_SERVER in front of it); sets NGINX_PID and NGINX_PORT once PROBE_PATH
# answers 200.
launch_nginx() {
  local dir="$BENCH_TMP/nginx" attempt user=""
  # As root, workers would drop to 'nobody' and lose access to the temp dir: keep the current user.
  ((EUID == 0)) && user="user $(id -un) $(id -gn);"
  for attempt in 1 2 3; do
    NGINX_PORT=$(free_port)
    sed -e "s|@USER@|$user|" -e "s|@WORKERS@|$NGINX_WORKERS|" -e "s|@DIR@|$dir|g" \
      -e "s|@PORT@|$NGINX_PORT|" -e "s|@PAGE_PATH@|$PAGE_PATH|" -e "s|@TRY_FILES@|$1|" \
      "$NGINX_TEMPLATE" >"$dir/nginx.conf"
    ${PIN_SERVER:-} nginx -p "$dir/" -e "$dir/nginx-error.log" -c "$dir/nginx.conf" >"$dir/stdout.log" 2>&1 &
    NGINX_PID=$!
    STARTED_PIDS+=("$NGINX_PID")
    if wait_for_200 "http://127.0.0.1:$NGINX_PORT$2" "$NGINX_PID" 5; then return 0; fi
    stop_pid "$NGINX_PID"
    log "bench: nginx did not start (attempt $attempt): $(tail -n 2 "$dir/nginx-error.log" 2>/dev/null)"
  done
  die "nginx would not start; see the messages above"
}

# wait_for_200 URL PID SECONDS: true once URL answers 200, false if PID dies or time runs out.
wait_for_200() {
  local deadline=$((SECONDS + $3))
  while ((SECONDS < deadline)); do
    kill -0 "$2" 2>/dev/null || return 1
    [[ $(curl -s -o /dev/null -w '%{http_code}' --max-time 2 "$1" || true) == 200 ]] && return 0
    sleep 0.02
  done
  return 1
}

# The process and its direct children (nginx master + workers; the mock alone).
server_pids() {
  local kids
  kids=$(pgrep -P "$1" | tr '\n' ' ' || true)
  echo "$1${kids:+ ${kids% }}"
}

# Sum of VmHWM (peak resident set) in kB over the given pids.
peak_rss_kb() {
  local pid total=0 kb
  for pid in "$@"; do
    kb=$(awk '/^VmHWM:/ {print $2}' "/proc/$pid/status" 2>/dev/null || echo 0)
    total=$((total + ${kb:-0}))
  done
  echo "$total"
}

# Sum of user+system CPU clock ticks over the given pids (whole thread groups).
cpu_ticks() {
  local pid total=0 t
  for pid in "$@"; do
    t=$(sed 's/.*) //' "/proc/$pid/stat" 2>/dev/null | awk '{print $12 + $13}' || echo 0)
    total=$((total + ${t:-0}))
  done
  echo "$total"
}

thread_count() {
  local tasks=("/proc/$1/task/"*)
  echo "${#tasks[@]}"
}

# tcp_counter FILE PREFIX NAME: a kernel TCP counter for this network namespace (all processes, so
# approximate): PassiveOpens = connections accepted, ListenOverflows = handshakes dropped because an
# accept queue was full.
tcp_counter() {
  awk -v p="$2:" -v name="$3" '$1 == p { if (!h) { for (i = 1; i <= NF; i++) if ($i == name) c = i; h = 1 }
    else print $c }' "$1"
}
passive_opens() { tcp_counter /proc/net/snmp Tcp PassiveOpens; }
listen_overflows() { tcp_counter /proc/net/netstat TcpExt ListenOverflows; }

# listen_backlog PORT: the accept queue length the server asked for (ss shows it as Send-Q).
listen_backlog() { ss -Hltn "sport = :$1" | awk '{ print $3; exit }'; }

# Prints "req_per_s p50_us p99_us requests socket_errors non_2xx" from wrk's --latency output.
parse_wrk() {
  awk '
    function us(v,   n, u) { n = v + 0; u = v; sub(/^[0-9.]+/, "", u)
      return u == "ms" ? n * 1e3 : u == "s" ? n * 1e6 : u == "m" ? n * 6e7 : n }
    /^ +50%/ { p50 = us($2) }
    /^ +99%/ { p99 = us($2) }
    / requests in / { req = $1 }
    /Socket errors/ { gsub(/,/, ""); err = $4 + $6 + $8 + $10 }
    /Non-2xx/ { non = $NF }
    /^Requests\/sec/ { rps = $2 }
    END { printf "%.0f %.0f %.0f %d %d %d\n", rps, p50, p99, req, err, non }' "$1"
}

# measure NAME URL CONNS PIDS...: one wrk run; sets MEASURED to
# "rps p50_us p99_us requests errors non2xx cpu% req/conn overflows" (no subshell, so the EXIT trap
# sees wrk).
measure() {
  local name=$1 url=$2 conns=$3; shift 3
  local threads=${WRK_THREADS:-$((conns < 2 ? 1 : 2))} out="$BENCH_TMP/wrk-$name-$conns-$RANDOM.txt"
  local ticks0 ticks1 opens0 opens1 over0 over1 t0 t1 wrk_pid
  ticks0=$(cpu_ticks "$@"); opens0=$(passive_opens); over0=$(listen_overflows); t0=$EPOCHREALTIME
  # $PIN_CLIENT: a command in front of wrk (taskset); WRK_OPTS: more options (-s script, -H header);
  # WRK_SCRIPT_ARGS: the arguments of the script, after "--".
  ${PIN_CLIENT:-} wrk -t"$threads" -c"$conns" -d"${DURATION}s" --timeout 2s --latency ${WRK_OPTS[@]+"${WRK_OPTS[@]}"} \
    "$url" ${WRK_SCRIPT_ARGS[@]+-- "${WRK_SCRIPT_ARGS[@]}"} >"$out" 2>&1 &
  wrk_pid=$!
  STARTED_PIDS+=("$wrk_pid")
  wait "$wrk_pid" || log "bench: wrk exited non-zero against $name ($url)"
  forget_pid "$wrk_pid"
  ticks1=$(cpu_ticks "$@"); opens1=$(passive_opens); over1=$(listen_overflows); t1=$EPOCHREALTIME
  MEASURED=$(awk -v r="$(parse_wrk "$out")" -v t0="$t0" -v t1="$t1" -v tk=$((ticks1 - ticks0)) -v hz="$CLK_TCK" \
    -v op=$((opens1 - opens0)) -v ov=$((over1 - over0)) 'BEGIN {
      split(r, f, " "); cpu = 100 * tk / hz / (t1 - t0)
      printf "%s %.0f %s %d\n", r, cpu, (op > 0 ? sprintf("%.0f", f[4] / op) : "-"), ov }')
}

# Results of interleaved rounds: RES[key,conns,round] holds a MEASURED line, ROUNDS the number of rounds.
# field KEY CONNS N: the N-th field (1 rps, 2 p50, 3 p99, 4 requests, 5 errors, 6 non2xx, 7 cpu%, 8 req/conn,
# 9 listen overflows) of every round, one per line.
field() {
  local r
  for ((r = 1; r <= ROUNDS; r++)); do awk -v n="$3" '{print $n}' <<<"${RES[$1,$2,$r]}"; done
}
med() {
  local vals
  mapfile -t vals < <(field "$1" "$2" "$3")
  median "${vals[@]}"
}
sum() { field "$1" "$2" "$3" | awk '{ s += $1 } END { print s + 0 }'; }
# Median over rounds of the per-round ratio KEY_A/KEY_B of field N (rounds are paired, so noise cancels).
paired_ratio() {
  local r a b vals=()
  for ((r = 1; r <= ROUNDS; r++)); do
    a=$(awk -v n="$4" '{print $n}' <<<"${RES[$1,$3,$r]}")
    b=$(awk -v n="$4" '{print $n}' <<<"${RES[$2,$3,$r]}")
    vals+=("$(ratio "$a" "$b")")
  done
  [[ " ${vals[*]} " == *" n/a "* ]] && { echo n/a; return 0; }
  median "${vals[@]}"
}

# warm URL: a short untimed run, so the first measured run does not pay for cold caches.
warm() { wrk -t2 -c32 -d1s "$1" >/dev/null 2>&1 || true; }

# Header names that occur more than once in a saved response head (curl -D).
duplicate_headers() {
  tr -d '\r' <"$1" | awk -F: 'NR > 1 && NF > 1 { n = tolower($1); if (++c[n] == 2 && n != "set-cookie") printf "%s ", n }'
}

# (OFMT: an even count's mean of two millions printed as 1.07238e+06 made verdict say MISS.)
median() { printf '%s\n' "$@" | sort -g | awk 'BEGIN { OFMT = "%.15g" } { a[NR] = $1 } END {
  if (NR == 0) print 0; else if (NR % 2) print a[(NR + 1) / 2]; else print (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }

# ratio A B: A/B, or n/a when either side measured nothing (e.g. wrk counted no answers).
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a <= 0 || b <= 0) { printf "n/a"; exit }
  r = a / b; printf(r < 0.095 ? "%.4f" : "%.2f", r) }'; }

# verdict VALUE OP LIMIT: PASS or MISS (OP is >= or <= or <); a value that is not a number misses.
verdict() {
  [[ $1 =~ ^[0-9.]+$ ]] || { echo MISS; return 0; }
  awk -v v="$1" -v op="$2" -v l="$3" 'BEGIN {
    ok = op == ">=" ? v >= l : op == "<=" ? v <= l : v < l; print ok ? "PASS" : "MISS" }'
}

fmt_us() { awk -v u="$1" 'BEGIN { if (u >= 1e6) printf "%.2fs", u / 1e6; else if (u >= 1e3) printf "%.2fms", u / 1e3; else printf "%dus", u }'; }
fmt_mib() { awk -v k="$1" 'BEGIN { printf "%.1f MiB", k / 1024 }'; }

# ms_to_first_200 RECORDS: launches the mock on a port picked beforehand and polls it over
# /dev/tcp (no fork per attempt) until it answers 200; sets READY_MS to the milliseconds since
# launch, or to "exited" / "timeout".
ms_to_first_200() {
  local records=$1 port t0 pid status="" deadline
  port=$(free_port)
  t0=$EPOCHREALTIME
  "$MOCK" --host 127.0.0.1 --port "$port" --records "$records" --seed "$SEED" --quiet >/dev/null 2>&1 &
  pid=$!
  STARTED_PIDS+=("$pid")
  deadline=$((SECONDS + 60))
  while ((SECONDS < deadline)); do
    if { exec 3<>"/dev/tcp/127.0.0.1/$port"; } 2>/dev/null; then
      printf 'GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n' "$PAGE_PATH" >&3
      IFS= read -r -t 5 status <&3 || true
      exec 3<&- 3>&-
      [[ $status == *" 200 "* ]] && break
    fi
    kill -0 "$pid" 2>/dev/null || { stop_pid "$pid"; READY_MS=exited; return 0; }
  done
  local t1=$EPOCHREALTIME
  stop_pid "$pid"
  READY_MS=timeout
  [[ $status == *" 200 "* ]] && READY_MS=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", (b - a) * 1000 }')
  return 0
}

# keepalive_probe URL: how many of 12 sequential requests one curl process sent per connection.
keepalive_probe() {
  local urls=() i
  for i in $(seq 12); do urls+=("$1"); done
  curl -sv -o /dev/null "${urls[@]}" 2>&1 | awk '
    /Connected to/ { c++ } END { printf "12 requests over %d connection(s)", c }'
}
