# Sourced by the ci/ tests that run a server of the project: listen LOG COMMAND... starts COMMAND --port 0 in the
# background, adds its pid to the array `pids` (the caller stops them) and sets `url` once it prints "listening
# on URL"; calls the caller's fail() when it stops first or says nothing within 20 s.
listen() {
  local log=$1
  shift
  "$@" --port 0 >"$log" 2>&1 &
  pids+=($!)
  url=
  for _ in $(seq 400); do
    url=$(sed -n 's/^listening on //p' "$log")
    [ -n "$url" ] && return 0
    kill -0 "${pids[-1]}" 2>/dev/null || fail "$1 stopped: $(cat "$log")"
    sleep 0.05
  done
  fail "$1 did not say where it listens: $(cat "$log")"
}
