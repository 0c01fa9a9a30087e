#!/usr/bin/env bash
# The npm package's budgets (issues 21 and 34), each against its target and, where it has one, a reference measured
# in the same run; then its differential at full size (3 seeds x 1,000 requests; fetch, MSW and Node fronts):
#   the tarball <= 3 MB;
#   createMock() ready (module compiled, first page answered) <= 150 ms in Node: the median of 9 fresh processes;
#   the core per page within 3x the native library: the same pages through the WebAssembly core alone (mock.planRaw,
#   no Fetch objects; npm_pages.mjs core), microseconds a page, against entimg-npm-pages-bench running the layers
#   one WebAssembly call runs (LiveDataset, MockApp admit/respond/finished, no log), and shown beside it against
#   Service::handle alone (the view and its serializer: the reference before issue 34);
#   computed pages a second through createMock().fetch(url) >= 0.7x Node's own Fetch floor: the same pages' Request
#   and Response made and read with no core at all (npm_pages.mjs floor), the most any Fetch front reaches here;
#   beside it createMock().fetch(new Request(url)), the app's Request read (no target: the floor makes one too);
#   through msw/node (the app's own fetch() under setupServer) >= 1.0x a hand-written MSW handler building the same
#   pages' bytes from a fixture (npm_msw.mjs; beside it, a handler replaying recorded bytes: MSW's ceiling);
#   the default collection (300,000 generated records) in <= 32 MiB of WebAssembly memory.
# The per-page figures are medians of 7 alternating rounds (a shared machine is noisy). Prints each figure with
# PASS/MISS; exit 0 also on a miss, 1 when the differential finds an unexplained difference, 2 when the setup is
# broken. Usage: bench/npm.sh [--no-build]. See docs/npm.md and docs/bench.md.
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

# Per-page figures: 7 alternating rounds, medians (the native library two ways, the core alone, createMock().fetch
# of a URL and of a Request, the floor), each over the same offsets from the 501st page (100,000 pages natively,
# 20,000 through the core, 10,000 through Fetch objects: each run a few tenths of a second, longer than a burst).
natives=() layers=() cores=() fetches=() requests=() floors=()
for _ in 1 2 3 4 5 6 7; do
  natives+=("$("$root/build/release/bench/entimg-npm-pages-bench" 100000 service | sed -E 's/.*: ([0-9]+) pages\/s.*/\1/')")
  layers+=("$("$root/build/release/bench/entimg-npm-pages-bench" 100000 layers | sed -E 's/.*: ([0-9]+) pages\/s.*/\1/')")
  cores+=("$(json "$(node "$here/npm_pages.mjs" "$pkg" core 20000)" pagesPerSecond)")
  fetches+=("$(json "$(node "$here/npm_pages.mjs" "$pkg" pages 10000)" pagesPerSecond)")
  requests+=("$(json "$(node "$here/npm_pages.mjs" "$pkg" requests 10000)" pagesPerSecond)")
  floors+=("$(json "$(node "$here/npm_pages.mjs" "$pkg" floor 10000)" pagesPerSecond)")
done
median_of() { printf '%s\n' "$@" | sort -g | sed -n 4p; }
native=$(median_of "${natives[@]}") layer=$(median_of "${layers[@]}") core=$(median_of "${cores[@]}")
wasm=$(median_of "${fetches[@]}") request=$(median_of "${requests[@]}") floor=$(median_of "${floors[@]}")
us() { node -e "console.log((1e6 / $1).toFixed(1))"; }
core_ratio=$(node -e "console.log(($layer / $core).toFixed(2))")
echo "native library, the view alone (Service::handle on the collection): $(printf '%.0f' "$native") pages/s," \
     "$(us "$native") µs a page; the layers a WebAssembly call runs (LiveDataset, MockApp admit/respond/finished):" \
     "$(printf '%.0f' "$layer") pages/s, $(us "$layer") µs a page (medians of 7)"
echo "WebAssembly core alone (mock.planRaw, no Fetch objects), the same pages: $(printf '%.0f' "$core") pages/s," \
     "$(us "$core") µs a page = ${core_ratio}x the native library's time through the same layers (target <= 3x):" \
     "$(verdict "$core_ratio <= 3"); $(node -e "console.log(($native / $core).toFixed(2))")x the view alone"
fetch_ratio=$(node -e "console.log(($wasm / $floor).toFixed(3))")
echo "Node's Request/Response alone (same pages, no core; the most a Fetch front can reach): $(printf '%.0f' "$floor") pages/s"
echo "createMock().fetch(url): $(printf '%.0f' "$wasm") pages/s = ${fetch_ratio}x Node's Fetch floor (target >= 0.7x):" \
     "$(verdict "$fetch_ratio >= 0.7"); $(node -e "console.log(($wasm / $layer).toFixed(3))")x the native library's layers;" \
     "createMock().fetch(new Request(url)): $(printf '%.0f' "$request") pages/s = $(node -e "console.log(($request / $floor).toFixed(3))")x"
cp "$here/npm_msw.mjs" "$BENCH_TMP/app/"
msw=$(cd "$BENCH_TMP/app" && node npm_msw.mjs 3000 5)
msw_ratio=$(node -e "const m = JSON.parse(process.argv[1]); console.log((m.mock / m.handWritten).toFixed(3))" "$msw")
echo "through msw/node (the app's fetch under setupServer): $(printf '%.0f' "$(json "$msw" mock)") pages/s with handlers()," \
     "$(printf '%.0f' "$(json "$msw" handWritten)") with a hand-written handler building the same bytes = ${msw_ratio}x" \
     "(target >= 1.0x): $(verdict "$msw_ratio >= 1.0"); a handler replaying recorded bytes $(printf '%.0f' "$(json "$msw" replay)")" \
     "(medians of 5 alternating rounds)"

memory=$(json "$(node "$here/npm_pages.mjs" "$pkg" memory)" memoryBytes)
echo "WebAssembly memory of 300,000 generated records after 2,004 pages across them: $memory bytes" \
     "($(node -e "console.log(($memory / 1048576).toFixed(1))") MiB; target <= 32 MiB): $(verdict "$memory <= 32 * 1048576")"

python3 "$root/mock/tests/npm/differential.py" --mock "$MOCK" --app "$BENCH_TMP/app" \
  --dataset "$root/fixtures/datasets/differential.jsonl" --seed 1 --seed 2 --seed 3 --requests 1000 --gzip \
  --cors http://example.org --show-known 0
