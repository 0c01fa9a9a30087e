#!/usr/bin/env bash
# The OpenAPI document as the ecosystem's tools read it, on more requests than ctest sends, against the mock
# and against the DRF stand-in (real DRF 3.14 on Django 3.2, mock/tests/differential/serve_drf.py): Prism's
# validating proxy over the differential's seeded requests (violations, agreed request violations, Prism's own
# answers), Specmatic's generated tests (failures by limitation, failures the document causes) and the two
# linters. Prints each tool's figures and time. A measurement: exit 0 also when a tool finds something; 2 when
# the setup is broken. See docs/schema.md ("The document as the tools read it") and docs/bench.md.
# Usage: bench/openapi.sh [--seeds N] [--requests M] [--combinations C] [--mock PATH]
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
usage="usage: bench/openapi.sh [--seeds N] [--requests M] [--combinations C] [--mock PATH]"

SEEDS=3
REQUESTS=1000
COMBINATIONS=4
MOCK=""
while (($#)); do
  case $1 in
    --seeds) SEEDS=${2:?--seeds needs a number}; shift ;;
    --requests) REQUESTS=${2:?--requests needs a number}; shift ;;
    --combinations) COMBINATIONS=${2:?--combinations needs a number}; shift ;;
    --mock) MOCK=${2:?--mock needs a path}; shift ;;
    -h | --help) echo "$usage"; exit 0 ;;
    *) echo "$usage" >&2; exit 2 ;;
  esac
  shift
done
# shellcheck source=bench/lib.sh
source "$root/bench/lib.sh"  # built_program
[[ -z $MOCK ]] && MOCK=$(built_program mock/entities-images-mock)
[[ -n $MOCK && -x $MOCK ]] || { echo "no mock binary (build one, or pass --mock PATH)" >&2; exit 2; }
[[ -d $root/node_modules/@stoplight/prism-cli ]] || { echo "npm tools missing: run ci/setup.sh" >&2; exit 2; }

dataset=$root/fixtures/datasets/differential.jsonl
drf=$root/mock/tests/differential/serve_drf.py
tests=$root/mock/tests/openapi
seed_args=()
for ((seed = 1; seed <= SEEDS; seed++)); do seed_args+=(--seed "$seed"); done
echo "mock $MOCK"
echo "tools: Prism $(node "$root/node_modules/@stoplight/prism-cli/dist/index.js" --version)," \
  "Specmatic $(java -jar "$root/node_modules/specmatic/specmatic.jar" --version 2>/dev/null | grep -o 'v[0-9.]*' | head -1)," \
  "Java $(java -version 2>&1 | head -1 | cut -d'"' -f2), Node $(node --version)"

status=0
for side in "mock $MOCK" "drf $drf"; do
  # shellcheck disable=SC2086
  set -- $side
  echo "== Prism in front of $1: ${SEEDS} seeds x ${REQUESTS} generated requests"
  start=$(date +%s.%N)
  /usr/bin/python3 "$tests/prism_proxy.py" --server "$1" "$2" --dataset "$dataset" "${seed_args[@]}" \
    --requests "$REQUESTS" | grep -v "^  " || { [[ ${PIPESTATUS[0]} == 2 ]] && status=2; }
  echo "prism: $1: $(echo "$(date +%s.%N) - $start" | bc) s"
  echo "== Specmatic against $1: at most $COMBINATIONS requests a scenario"
  /usr/bin/python3 "$tests/specmatic_tests.py" --server "$1" "$2" --dataset "$dataset" \
    --combinations "$COMBINATIONS" --show 3 --timeout 1200 || { [[ $? == 2 ]] && status=2; }
done
echo "== Linters"
bash "$root/common/tests/schema_cases/schema_lint.sh" || true
exit $status
