#!/usr/bin/env bash
# Mutation testing of the contract suite on more seeds and more mutants than ctest runs: entimg-mutants
# over the mock's service (a collection drawn from each seed) and over the DRF replica, then the kill rate
# per class over all of them, quick (of the quick-visible mutants) and full. A measurement: exit 0 also
# when mutants survive (each survivor is printed with the command that reproduces it); 2 when the setup is
# broken. See docs/mutation-testing.md and docs/bench.md.
# Usage: bench/mutants.sh [--seeds N] [--first-seed S] [--per-class P] [--no-drf] [--bin PATH]
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
usage="usage: bench/mutants.sh [--seeds N] [--first-seed S] [--per-class P] [--no-drf] [--bin PATH]"

SEEDS=5
FIRST=1
PER_CLASS=12
DRF=true
BIN=""
while (($#)); do
  case $1 in
    --seeds) SEEDS=${2:?--seeds needs a number}; shift ;;
    --first-seed) FIRST=${2:?--first-seed needs a number}; shift ;;
    --per-class) PER_CLASS=${2:?--per-class needs a number}; shift ;;
    --no-drf) DRF=false ;;
    --bin) BIN=${2:?--bin needs a path}; shift ;;
    -h | --help) echo "$usage"; exit 0 ;;
    *) echo "$usage" >&2; exit 2 ;;
  esac
  shift
done
# shellcheck source=bench/lib.sh
source "$root/bench/lib.sh"  # built_program
[[ -z $BIN ]] && BIN=$(built_program contract/tests/entimg-mutants)
[[ -n $BIN && -x $BIN ]] || { echo "no entimg-mutants binary (build one, or pass --bin PATH)" >&2; exit 2; }

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
echo "entimg-mutants: $BIN"
runs=()
failed_runs=()  # a survivor or a false failure over the tolerated controls
for ((seed = FIRST; seed < FIRST + SEEDS; seed++)); do
  upstreams=(mock)
  $DRF && upstreams+=(drf)
  for upstream in "${upstreams[@]}"; do
    args=(--seed "$seed" --per-class "$PER_CLASS" --json "$out/$upstream-$seed.json")
    if [[ $upstream == drf ]]; then
      # The replica answers one request at a time through Django: half as many mutants per class.
      args=(--seed "$seed" --per-class $(((PER_CLASS + 1) / 2)) --json "$out/$upstream-$seed.json" --upstream drf
        --drf-script "$root/mock/tests/differential/serve_drf.py"
        --dataset "$root/fixtures/datasets/differential.jsonl")
    fi
    echo
    echo "== $upstream, seed $seed"
    "$BIN" "${args[@]}" | grep -vE '^(class|[a-z-]+ +[0-9]+ +[0-9]+ )' 
    status=${PIPESTATUS[0]}
    ((status <= 1)) || { echo "entimg-mutants failed to run (exit $status)" >&2; exit 2; }
    ((status == 0)) || failed_runs+=("$upstream seed $seed")
    runs+=("$out/$upstream-$seed.json")
  done
done

echo
echo "== all runs"
/usr/bin/python3 - "${runs[@]}" <<'PY'
import json, sys
tally = {}
for path in sys.argv[1:]:
    for r in json.load(open(path))["results"]:
        t = tally.setdefault(r["class"], [0, 0, 0, 0])
        t[0] += 1
        t[3] += r["killed_full"]
        if r["visibility"] == "quick":
            t[1] += 1
            t[2] += r["killed_quick"]
def pct(a, b):
    return "   -" if b == 0 else "%3d%%" % (a * 100 // b)
print("%-16s %7s %14s %24s %16s" % ("class", "mutants", "quick-visible", "killed in quick", "killed in full"))
total = [0, 0, 0, 0]
for klass, t in tally.items():
    print("%-16s %7d %14d %15s %s %11s %s" % (klass, t[0], t[1], "%d/%d" % (t[2], t[1]), pct(t[2], t[1]),
                                             "%d/%d" % (t[3], t[0]), pct(t[3], t[0])))
    total = [a + b for a, b in zip(total, t)]
print("%-16s %7d %14d %15s %s %11s %s" % ("all", total[0], total[1], "%d/%d" % (total[2], total[1]),
                                         pct(total[2], total[1]), "%d/%d" % (total[3], total[0]), pct(total[3], total[0])))
PY
if ((${#failed_runs[@]} == 0)); then
  echo "runs: ${#runs[@]} of ${#runs[@]} PASS (no survivor, no false failure over the tolerated controls)"
else
  echo "runs: $((${#runs[@]} - ${#failed_runs[@]})) of ${#runs[@]} PASS; FAIL: ${failed_runs[*]} (their survivors and false failures are printed above)"
fi
