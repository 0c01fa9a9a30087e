#!/usr/bin/env bash
# The connection front under the attacks of issue 10, at full size: 10,000 idle keep-alive connections
# plus 1,000 slowloris ones while a fresh client is timed, then each attack alone (endless lines, a header
# flood, a 256 MiB body, 1,000 abandoned delays), the mock's RSS sampled throughout. Prints figures and
# PASS/MISS; exit 0 unless the setup is broken (2). See docs/bench.md.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
MOCK="$root/build/release/mock/entities-images-mock"
DRIVER="$root/build/release/mock/tests/entimg-connections-bench"
IDLE=10000
SLOWLORIS=1000
SECONDS_UNDER_LOAD=15

usage() {
  echo "usage: bench/connections.sh [--idle N] [--slowloris N] [--seconds S] [--mock PATH] [--driver PATH]"
}
while (($#)); do
  case $1 in
    --idle) IDLE=$2; shift 2 ;;
    --slowloris) SLOWLORIS=$2; shift 2 ;;
    --seconds) SECONDS_UNDER_LOAD=$2; shift 2 ;;
    --mock) MOCK=$2; shift 2 ;;
    --driver) DRIVER=$2; shift 2 ;;
    -h | --help) usage; exit 0 ;;
    *) usage >&2; exit 2 ;;
  esac
done
for n in "$IDLE" "$SLOWLORIS" "$SECONDS_UNDER_LOAD"; do
  [[ $n =~ ^[0-9]+$ ]] || { usage >&2; exit 2; }
done
[[ -x $MOCK && -x $DRIVER ]] || {
  echo "bench: build first: cmake --preset release && cmake --build --preset release (needs $MOCK and $DRIVER)" >&2
  exit 2
}
# Both sides need a descriptor per connection.
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
(( $(ulimit -n) > IDLE + SLOWLORIS + 100 )) ||
  { echo "bench: the open-file limit ($(ulimit -n)) is below $((IDLE + SLOWLORIS + 100)); lower --idle" >&2; exit 2; }

log=$(mktemp /tmp/entimg-connections.XXXXXX)
"$MOCK" --port 0 --quiet >"$log" 2>&1 &
pid=$!
trap 'kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; rm -f "$log"' EXIT
for _ in $(seq 200); do grep -q 'listening on' "$log" && break; sleep 0.05; done
port=$(grep -o 'listening on http://127.0.0.1:[0-9]*' "$log" | sed 's/.*://') ||
  { echo "bench: the mock did not start: $(cat "$log")" >&2; exit 2; }
echo "bench/connections.sh: $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, mock pid $pid on port $port," \
  "threads $(ls /proc/$pid/task | wc -l), open-file limit $(ulimit -n)"
"$DRIVER" --port "$port" --pid "$pid" --idle "$IDLE" --slowloris "$SLOWLORIS" --seconds "$SECONDS_UNDER_LOAD"
