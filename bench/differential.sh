#!/usr/bin/env bash
# Random differential measurement: the mock against the DRF stand-in on more seeds than ctest runs.
# Prints per-seed counts (identical / different / known differences by kind) and a replay command for each
# difference. A measurement: exit 0 also when differences exist; 2 when the setup is broken (no mock, no
# Django, a server that does not start). See docs/bench.md and docs/differential-test.md.
# Usage: bench/differential.sh [--seeds N] [--first-seed S] [--requests M] [--mock PATH]
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
usage="usage: bench/differential.sh [--seeds N] [--first-seed S] [--requests M] [--mock PATH]"

SEEDS=3
FIRST=1
REQUESTS=3000
MOCK=""
while (($#)); do
  case $1 in
    --seeds) SEEDS=${2:?--seeds needs a number}; shift ;;
    --first-seed) FIRST=${2:?--first-seed needs a number}; shift ;;
    --requests) REQUESTS=${2:?--requests needs a number}; shift ;;
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

seed_args=()
for ((seed = FIRST; seed < FIRST + SEEDS; seed++)); do seed_args+=(--seed "$seed"); done
echo "mock $MOCK"
/usr/bin/python3 "$root/mock/tests/differential/run_random.py" --mock "$MOCK" \
  --dataset "$root/fixtures/datasets/differential.jsonl" --requests "$REQUESTS" "${seed_args[@]}"
status=$?
case $status in
  0 | 1) exit 0 ;;  # differences are the measurement, not a setup failure
  *) exit 2 ;;
esac
