#!/bin/sh
# entimg-broken-server and entities-images-contract as black boxes: the server starts on a free port
# and says where, the tool exits 1 with exactly the variant's rules failing (0 for a tolerated one),
# and SIGTERM stops the server cleanly.
# Usage: cli_check.sh BROKEN_SERVER CONTRACT_TOOL
set -u
server=$1
contract=$2
dir=$(mktemp -d)
pid=
trap 'test -n "$pid" && kill "$pid" 2>/dev/null; rm -rf "$dir"' EXIT

fail() {
  echo "FAIL: $*"
  exit 1
}

# check VARIANT EXPECTED_EXIT EXPECTED_FAILING_RULES(space-separated, sorted)
check() {
  # A file of its own: the shell truncates a reused one only once the server's process has started, so
  # the loop below could read the previous server's address.
  out="$dir/server-$1.txt"
  : >"$out"
  "$server" --variant "$1" --records 100 --port 0 >"$out" 2>&1 &
  pid=$!
  i=0
  url=
  # One read gives the URL, once its line is whole (a port of one or more digits, then the newline).
  until [ -n "$url" ]; do
    url=$(sed -n 's|^listening on \(http://127\.0\.0\.1:[0-9][0-9]*\)$|\1|p' "$out")
    [ -n "$url" ] && break
    i=$((i + 1))
    [ $i -le 200 ] || fail "$1: the server did not say where it listens: $(cat "$out")"
    sleep 0.05
  done
  "$contract" --base-url "$url" --mode full --seed 42 --no-progress >"$dir/report.txt" 2>&1
  code=$?
  failing=$(sed -n 's/^FAIL  \([a-z_]*\).*/\1/p' "$dir/report.txt" | sort | tr '\n' ' ' | sed 's/ $//')
  [ "$code" -eq "$2" ] || fail "$1: exit $code, expected $2: $(cat "$dir/report.txt")"
  [ "$failing" = "$3" ] || fail "$1: failing rules [$failing], expected [$3]: $(cat "$dir/report.txt")"
  kill -TERM "$pid"
  wait "$pid"
  code=$?
  pid=
  [ "$code" -eq 0 ] || fail "$1: the server exited $code on SIGTERM"
  echo "PASS  $1: exit $2, failing [$failing]"
}

check vary-missing 1 "vary_accept"
check next-offset-off-by-one 1 "next_link_offset"
check walk-page-repeats-a-record 1 "ascending_across_pages walk_no_duplicates"
check previous-offset-zero 0 ""

"$server" --variant no-such-variant >"$dir/out.txt" 2>&1
[ $? -eq 2 ] || fail "an unknown variant must exit 2"
grep -q "unknown variant 'no-such-variant'" "$dir/out.txt" || fail "unknown variant message: $(cat "$dir/out.txt")"
"$server" --list | grep -q '^records-swapped-across-pages$' || fail "--list does not list the variants"
echo "PASS  unknown variant and --list"
