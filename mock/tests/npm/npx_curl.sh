#!/usr/bin/env bash
# `npx entities-images-mock` from the installed package serves the README's sample page, and curl fetches it:
# byte for byte what the native mock serves for the same request; then the picture of its first record.
# Usage: npx_curl.sh APP_DIR NATIVE_BINARY
set -uo pipefail
app=$1 native=$2
tmp=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill -- "-$p" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$tmp"; }
trap cleanup EXIT
start() {  # start NAME COMMAND...: waits for "listening on http://127.0.0.1:PORT", sets $url
  local name=$1; shift
  setsid "$@" > "$tmp/$name.out" 2> "$tmp/$name.err" &
  pids+=($!)
  for _ in $(seq 300); do
    url=$(grep -o 'listening on http://127\.0\.0\.1:[0-9]*' "$tmp/$name.out" | head -1 | cut -d' ' -f3 || true)
    [ -n "$url" ] && return
    sleep 0.1
  done
  echo "$name did not start: $(cat "$tmp/$name.err")" >&2; exit 1
}
cd "$app"
start npx npx --no-install entities-images-mock --port 0 --records 1000 --seed 5
wasm=$url
start native "$native" --port 0 --records 1000 --seed 5 --quiet
real=$url
sample='/edw/api/entities-images/?format=json&offset=24'
curl -sS -D "$tmp/wasm.head" -o "$tmp/wasm.body" "$wasm$sample"
curl -sS -o "$tmp/native.body" "$real$sample"
failures=0
check() { if [ "$2" = 0 ]; then echo "PASS $1"; else echo "FAIL $1"; failures=$((failures + 1)); fi; }
grep -q '^HTTP/1.1 200 OK' "$tmp/wasm.head"; check "npx entities-images-mock answers the sample page 200" $?
grep -qi '^Date: ' "$tmp/wasm.head"; check "with a Date header" $?
sed "s#${wasm#http://}#HOST#g" "$tmp/wasm.body" > "$tmp/a"; sed "s#${real#http://}#HOST#g" "$tmp/native.body" > "$tmp/b"
cmp -s "$tmp/a" "$tmp/b"; check "the body is the native mock's, byte for byte (hosts aside)" $?
image=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["results"][0]["image"])' "$tmp/wasm.body")
curl -sS -o "$tmp/picture" -w '%{content_type}' "$image" > "$tmp/type"
curl -sS -o "$tmp/native.picture" "$real${image#"$wasm"}"
cmp -s "$tmp/picture" "$tmp/native.picture"; check "its first picture ($(cat "$tmp/type")) is the native mock's" $?
grep -q 'GET /edw/api/entities-images/?format=json&offset=24 200' "$tmp/npx.err"; check "the request log on stderr" $?
npx --no-install entities-images-mock --memo-bytes 0 > /dev/null 2> "$tmp/refused.err"
[ $? = 2 ] && grep -q "option --memo-bytes is the native mock's only: every answer is computed" "$tmp/refused.err"
check "a native-only flag is refused with the table's reason, exit 2" $?
npx --no-install entities-images-mock --help > "$tmp/help.out"
grep -q 'Not here (the native mock.s only): --threads, --state, ' "$tmp/help.out"; check "--help lists them" $?
# Issue 43: what the npx server is for, and its limit under many clients, said where a user looks.
grep -q "For an app's development and tests on this machine: one thread answers every request in turn" "$tmp/help.out" &&
  grep -q 'For load tests, or to serve other machines, run the' "$tmp/help.out"
check "--help says what npx is for and its limit under load" $?
echo "$((7 - failures)) passed, $failures failed"
[ "$failures" = 0 ]
