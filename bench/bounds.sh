#!/usr/bin/env bash
# The bounds of issue 19 measured against references of the same run (docs/bench.md, "Bounds"): the admin
# journal's memory under 10,000 x 121 KiB POSTs and while it is listed, a monitor scrape while 100 slow
# clients are connected, --churn under alternating X-Mock-Time, a request with 100,000 query parameters,
# and (issue 36) the suite's peak RSS on a 58 KB gzip page of 20 million values.
# Uses the release build (build it first: cmake --workflow --preset release, or the two targets); run it under
# the build lock, as every bench: /work/bin/buildlock bash bench/bounds.sh. About 2 minutes.
# Issue 36's: journalled POSTs against plain ones, GETs during a 501-filter count, files refused at once, (bulk) a
# fresh GET while four ?limit=300000&format=api pages are built, native and npx; and the npm package's (build/wasm's
# tarball, installed into a temporary app folder; no npx line without a tarball): uploads through
# createMock().fetch, the npx server's limits beside the native front's (--only uploads, --only npx).
# Issue 43's: the RSS over time of 24 clients that read none of their huge pages (--only unread), and JSON-array
# datasets' load time at 20,000 and 100,000 records against JSON Lines, native and npx (--only jsonarray).
# Usage: bench/bounds.sh [--only journal|count|files|monitor|churn|params|gzip|bulk|uploads|npx|unread|jsonarray]...
#                        [--mock PATH]
#                        [--contract PATH]
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
MOCK=$root/build/release/mock/entities-images-mock
CONTRACT=$root/build/release/contract/entities-images-contract
extra=()
while (($#)); do
  case $1 in
    --mock) MOCK=${2:?}; shift ;;
    --contract) CONTRACT=${2:?}; shift ;;
    --only) extra+=(--only "${2:?}"); shift ;;
    -h | --help) sed -n '2,16p' "$0"; exit 0 ;;
    *) echo "usage: bench/bounds.sh [--only NAME]... [--mock PATH] [--contract PATH]" >&2; exit 2 ;;
  esac
  shift
done
programs=("$MOCK")
# The contract tool serves only the monitor's figures.
[[ ${#extra[@]} -eq 0 || " ${extra[*]} " == *" monitor "* ]] && programs+=("$CONTRACT")
for program in "${programs[@]}"; do
  [[ -x $program ]] || { echo "bench: no $program (cmake --build --preset release)" >&2; exit 2; }
done
# The npm package's lines need it installed as an app installs it (bulk: its npx line only when there is one).
wants() { [[ ${#extra[@]} -eq 0 || " ${extra[*]} " == *" $1 "* ]]; }
if wants uploads || wants npx || { { wants bulk || wants jsonarray; } && ls "$root"/build/wasm/entities-images-mock-*.tgz >/dev/null 2>&1; }; then
  app=$(mktemp -d /tmp/entimg-bounds-npm.XXXXXX)
  trap 'rm -rf "$app"' EXIT
  bash "$root/mock/tests/npm/install_package.sh" "$root/build/wasm" "$app" >"$app.log" 2>&1 ||
    { echo "bench: installing build/wasm's tarball failed (cmake --workflow --preset wasm): $(tail -n 5 "$app.log")" >&2; exit 2; }
  rm -f "$app.log"
  extra+=(--npm-app "$app" --npx-app "$app")
fi
echo "mock $MOCK; contract $CONTRACT; $(nproc) cores"
/usr/bin/python3 "$root/bench/bounds.py" --mock "$MOCK" --contract "$CONTRACT" "${extra[@]}"
