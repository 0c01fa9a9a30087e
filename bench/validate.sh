#!/usr/bin/env bash
# Schema-validation speed, our validator (entimg-validate-bench) against ajv (bench/validate_ajv.js), on
# the same records in one run: builds the release preset, takes 20 pages of 1000 records from the mock,
# then runs both interleaved and prints the medians and the ratio ours/ajv; ours also from simdjson's DOM
# (the suite's fast path), against ajv's per-record figure. Then the agreement test on more seeds: the
# compiled checks against valijson and ajv on seeded random mutations (entimg-schema-agreement). About 50 s.
# See docs/bench.md. Exit code 0, also when ours is slower; 1 when the agreement test finds a
# disagreement; 2 when the setup is broken or the two disagree on the mock's records.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)

MOCK="$root/build/release/mock/entities-images-mock"
BENCH="$root/build/release/bench/entimg-validate-bench"
AGREEMENT="$root/build/release/common/tests/entimg-schema-agreement"
SEED=1
ROUNDS=3
RUN_SECONDS=2
PAGES=20
BUILD=true
AGREEMENT_SEEDS=3
MUTATIONS=10000

usage() {
  cat <<EOF
usage: bench/validate.sh [--seconds S] [--rounds N] [--seeds N] [--mutations M] [--no-build]
  --seconds    seconds per measurement; each run measures records, then pages, and ours records from
               simdjson's DOM (default $RUN_SECONDS)
  --rounds     interleaved rounds, ours and ajv alternating which goes first (default $ROUNDS)
  --seeds      seeds of the agreement test, 1 to N (default $AGREEMENT_SEEDS; 0 leaves it out)
  --mutations  mutated documents per seed (default $MUTATIONS)
  --no-build   use the binaries already in build/release
EOF
}

while (($#)); do
  case $1 in
    --seconds) RUN_SECONDS=$2; shift 2 ;;
    --rounds) ROUNDS=$2; shift 2 ;;
    --seeds) AGREEMENT_SEEDS=$2; shift 2 ;;
    --mutations) MUTATIONS=$2; shift 2 ;;
    --no-build) BUILD=false; shift ;;
    -h | --help) usage; exit 0 ;;
    *) usage >&2; exit 2 ;;
  esac
done

BENCH_TMP=$(mktemp -d /tmp/entimg-validate-bench.XXXXXX)
# shellcheck source=bench/lib.sh
source "$here/lib.sh"  # log, die, cleanup (stops what we started, removes BENCH_TMP), start_mock, median, ratio
trap cleanup EXIT
trap 'exit 130' INT TERM
whole_number --seconds "$RUN_SECONDS" 1 30
whole_number --rounds "$ROUNDS" 1 20
whole_number --seeds "$AGREEMENT_SEEDS" 0 1000
whole_number --mutations "$MUTATIONS" 1 10000000

for tool in curl node flock; do command -v "$tool" >/dev/null || die "$tool not found (ci/setup.sh installs it)"; done
[[ -x /usr/bin/python3 ]] || die "/usr/bin/python3 not found (ci/setup.sh installs it)"
[[ -f $root/node_modules/ajv/package.json && -f $root/node_modules/ajv-formats/package.json ]] ||
  die "ajv is not installed under $root/node_modules (npm ci, as ci/setup.sh does)"

$BUILD && build_release entimg-validate-bench entities-images-mock entimg-schema-agreement
[[ -x $BENCH && -x $MOCK && -x $AGREEMENT ]] || die "no binaries in build/release (run without --no-build)"

# The records: 20 pages of 1000 from the mock (127.0.0.1 only), merged into one JSON array.
start_mock 300000
for ((k = 0; k < PAGES; k++)); do
  curl -sS --fail --max-time 10 -o "$BENCH_TMP/page-$k.json" \
    "http://127.0.0.1:$MOCK_PORT/edw/api/entities-images/?limit=1000&offset=$((k * 1000))" ||
    die "could not fetch page $k from the mock"
done
stop_pid "$MOCK_PID"
RECORDS="$BENCH_TMP/records.json"
/usr/bin/python3 - "$BENCH_TMP" "$PAGES" "$RECORDS" <<'EOF' || die "could not merge the pages"
import json, sys
tmp, pages, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
records = []
for k in range(pages):
    with open(f"{tmp}/page-{k}.json", encoding="utf-8") as f:
        results = json.load(f)["results"]
    if len(results) != 1000:
        sys.exit(f"page {k} holds {len(results)} records, expected 1000")
    records.extend(results)
with open(out, "w", encoding="utf-8") as f:
    json.dump(records, f, ensure_ascii=False)
EOF

echo "bench: $PAGES x 1000 records from the mock (seed $SEED), $ROUNDS round(s) x ${RUN_SECONDS}s per figure," \
  "1 thread each, $(nproc) cores, $(uname -r), node $(node --version)," \
  "ajv $(node -p "require('$root/node_modules/ajv/package.json').version")"
echo "bench: the machine is shared and noisy: read the ratios (both sides measured in this run, interleaved)," \
  "not the absolute figures"

# figure LINE_PREFIX OUTPUT: the records/s on the line that starts with the prefix.
figure() {
  awk -v p="$1: " 'index($0, p) == 1 { split(substr($0, length(p) + 1), f, " "); print f[1]; exit }' <<<"$2"
}

run_ours() { "$BENCH" "$RECORDS" --seconds "$RUN_SECONDS"; }
run_ajv() { node "$here/validate_ajv.js" "$RECORDS" --seconds "$RUN_SECONDS"; }

declare -a ours_rec ajv_rec ours_page ajv_page rec_ratio page_ratio ours_dom dom_ratio dom_speedup
invalid=""
for ((r = 1; r <= ROUNDS; r++)); do
  if ((r % 2)); then
    ours=$(run_ours) || die "entimg-validate-bench failed"
    ajv=$(run_ajv) || die "validate_ajv.js failed"
  else
    ajv=$(run_ajv) || die "validate_ajv.js failed"
    ours=$(run_ours) || die "entimg-validate-bench failed"
  fi
  printf '%s\n' "round $r:" "  $(head -n 1 <<<"$ours")" "  $(sed -n 3p <<<"$ours")" "  $(head -n 1 <<<"$ajv")" \
    "  $(sed -n 2p <<<"$ours")" "  $(sed -n 2p <<<"$ajv")"
  if grep -q 'all valid: no' <<<"$ours$ajv"; then invalid=yes; fi
  ours_rec+=("$(figure ours "$ours")"); ajv_rec+=("$(figure ajv "$ajv")")
  ours_page+=("$(figure 'ours via pages' "$ours")")
  ajv_page+=("$(figure 'ajv via pages' "$ajv")")
  rec_ratio+=("$(ratio "${ours_rec[-1]}" "${ajv_rec[-1]}")")
  page_ratio+=("$(ratio "${ours_page[-1]}" "${ajv_page[-1]}")")
  ours_dom+=("$(figure 'ours via simdjson' "$ours")")
  dom_ratio+=("$(ratio "${ours_dom[-1]}" "${ajv_rec[-1]}")")
  dom_speedup+=("$(ratio "${ours_dom[-1]}" "${ours_rec[-1]}")")
done

echo "== medians of $ROUNDS rounds (ratio = median of the per-round ratios ours/ajv)"
printf 'records/s: ours %.0f, ajv %.0f, ratio %s\n' "$(median "${ours_rec[@]}")" "$(median "${ajv_rec[@]}")" \
  "$(median "${rec_ratio[@]}")"
printf 'records/s via pages of 1000: ours %.0f, ajv %.0f, ratio %s\n' "$(median "${ours_page[@]}")" \
  "$(median "${ajv_page[@]}")" "$(median "${page_ratio[@]}")"
printf 'records/s from simdjson DOM: ours %.0f (%sx ours from nlohmann::json), ajv %.0f, ratio %s\n' \
  "$(median "${ours_dom[@]}")" "$(median "${dom_speedup[@]}")" "$(median "${ajv_rec[@]}")" \
  "$(median "${dom_ratio[@]}")"
[[ -z $invalid ]] || die "some records were invalid for one validator: the two did not do the same work"

# The agreement test on more seeds than CI's (common.schema_agreement runs seed 1 x 5000).
disagreed=""
if ((AGREEMENT_SEEDS > 0)); then
  echo "== agreement: compiled checks vs valijson and ajv, $AGREEMENT_SEEDS seed(s) x $MUTATIONS mutated documents"
  for ((seed = 1; seed <= AGREEMENT_SEEDS; seed++)); do
    status=0
    "$AGREEMENT" --seed "$seed" --mutations "$MUTATIONS" --node "$(command -v node)" \
      --ajv-script "$root/common/tests/agreement/ajv_agreement.js" || status=$?
    ((status == 0)) || { ((status == 1)) && disagreed=yes || die "entimg-schema-agreement failed (status $status)"; }
  done
fi
[[ -z $disagreed ]] || { echo "bench: the agreement test found disagreements (above, each with its replay command)"; exit 1; }
