#!/usr/bin/env bash
# The npm package's budgets (issue 21), each against its target and, where it has one, the native mock measured
# in the same run; then its differential at full size (3 seeds x 1,000 requests; fetch, MSW and Node fronts):
#   the tarball <= 3 MB;
#   createMock() ready (module compiled, first page answered) <= 150 ms in Node: the median of 9 fresh processes;
#   computed pages a second through createMock().fetch >= 0.3x the native library's (Service::handle), one thread,
#   beside what Node's own Request and Response allow with no core at all (the ceiling of any Fetch front);
#   the default collection (300,000 generated records) in <= 32 MiB of WebAssembly memory.
# Prints each figure with PASS/MISS; exit 0 also on a miss, 1 when the differential finds an unexplained
# difference, 2 when the setup is broken. Usage: bench/npm.sh [--no-build]. See docs/npm.md and docs/bench.md.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
BUILD=true
case ${1:-} in
  --no-build) BUILD=false ;;
  "") ;;
  *) echo "usage: bench/npm.sh [--no-build]" >&2; exit 2 ;;
esac

BENCH_TMP=$(mktemp -d /tmp/entimg-npm-bench.XXXXXX)
# shellcheck source=bench/lib.sh
source "$here/lib.sh"  # log, die, cleanup, build_release
trap cleanup EXIT
trap 'exit 130' INT TERM
if $BUILD; then
  build_release entities-images-mock entimg-npm-pages-bench
  (cd "$root" && flock /tmp/entimg-build.lock cmake --workflow --preset wasm >"$BENCH_TMP/wasm.log" 2>&1) ||
    die "cmake --workflow --preset wasm failed: $(tail -n 20 "$BENCH_TMP/wasm.log")"
fi
MOCK="$root/build/release/mock/entities-images-mock"
[[ -x $MOCK && -x $root/build/release/bench/entimg-npm-pages-bench ]] || die "no release build (run without --no-build)"
tarball=$(ls "$root"/build/wasm/entities-images-mock-*.tgz 2>/dev/null | head -1)
[[ -n $tarball ]] || die "no tarball in build/wasm (run without --no-build)"
bash "$root/mock/tests/npm/install_package.sh" "$root/build/wasm" "$BENCH_TMP/app" >"$BENCH_TMP/install.log" 2>&1 ||
  die "installing the tarball failed: $(tail -n 20 "$BENCH_TMP/install.log")"
pkg="$BENCH_TMP/app/node_modules/entities-images-mock"
json() { node -e "const v = JSON.parse(process.argv[1]); console.log(v[process.argv[2]])" "$1" "$2"; }
verdict() { node -e "console.log(($1) ? 'PASS' : 'MISS')"; }

size=$(stat -c %s "$tarball")
echo "tarball: $(basename "$tarball") $size bytes ($(node -e "console.log(($size / 1e6).toFixed(2))") MB; target <= 3 MB): $(verdict "$size <= 3e6")"

readies=()
for _ in $(seq 9); do readies+=("$(json "$(node "$here/npm_pages.mjs" "$pkg" ready)" totalMs)"); done
median=$(printf '%s\n' "${readies[@]}" | sort -g | sed -n 5p)
echo "createMock ready (import, compile, first page), median of 9 fresh processes: $(printf '%.1f' "$median") ms" \
     "(all: $(printf '%.0f ' "${readies[@]}")ms; target <= 150 ms): $(verdict "$median <= 150")"

native_line=$("$root/build/release/bench/entimg-npm-pages-bench" 20000)
native=$(sed -E 's/.*: ([0-9]+) pages\/s.*/\1/' <<<"$native_line")
wasm=$(json "$(node "$here/npm_pages.mjs" "$pkg" pages 5000)" pagesPerSecond)
ratio=$(node -e "console.log(($wasm / $native).toFixed(3))")
echo "$native_line"
echo "createMock().fetch: $(printf '%.0f' "$wasm") pages/s = ${ratio}x the native library (target >= 0.3x): $(verdict "$ratio >= 0.3")"
# The ceiling of any Fetch front here: Node's own Request and Response around the same page bytes, no core.
floor=$(json "$(node "$here/npm_pages.mjs" "$pkg" floor 5000)" pagesPerSecond)
echo "Node's Request/Response alone (same pages, no core): $(printf '%.0f' "$floor") pages/s =" \
     "$(node -e "console.log(($floor / $native).toFixed(3))")x the native library: the most a Fetch front can reach here"

memory=$(json "$(node "$here/npm_pages.mjs" "$pkg" memory)" memoryBytes)
echo "WebAssembly memory of 300,000 generated records after 2,004 pages across them: $memory bytes" \
     "($(node -e "console.log(($memory / 1048576).toFixed(1))") MiB; target <= 32 MiB): $(verdict "$memory <= 32 * 1048576")"

python3 "$root/mock/tests/npm/differential.py" --mock "$MOCK" --app "$BENCH_TMP/app" \
  --dataset "$root/fixtures/datasets/differential.jsonl" --seed 1 --seed 2 --seed 3 --requests 1000 --gzip \
  --cors http://example.org --show-known 0
