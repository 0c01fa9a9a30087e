#!/usr/bin/env bash
# Runs what the GitHub Action and the GitLab template run, here, as an unprivileged user (nobody: ci/gate.sh needs
# no root with a suite at hand), against the portable tarball's mock on a loopback port:
#  - ci/action_gate.sh (action.yml's shell) with the action's inputs: PASS against the mock, with the three reports,
#    the Markdown summary and the step's output verdict=PASS; FAIL (exit 1) against a broken server when one is
#    built (build/dev's entimg-broken-server); ERROR (exit 2) against a closed port;
#  - the GitLab template's script: the tarball unpacked, its bin/entities-images-gate run beside its suite.
# Usage: ci/action_gate_test.sh TARBALL   (ci/portable.sh --test runs it; needs root to become nobody)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
tarball=$(realpath "$1")
work=$(mktemp -d)
chmod 755 "$work"
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null; done
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "action gate test: FAIL: $*" >&2; exit 1; }
as_nobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups --reset-env env PATH=/usr/bin:/bin "$@"; }

tar -xzf "$tarball" -C "$work"
unpacked=$(ls -d "$work"/entities-images-*-linux-x86_64)
. "$here/listen.sh"
# action: the action's shell in a fresh folder owned by nobody, with the inputs as action.yml passes them.
action() {  # action NAME BASE_URL EXPECTED_EXIT EXPECTED_VERDICT [AUTH]
  local dir=$work/$1 status=0
  mkdir -p "$dir"
  chown nobody "$dir"
  (cd "$dir" && as_nobody ENTITIES_IMAGES_BASE_URL="$2" ENTITIES_IMAGES_MODE=quick ENTITIES_IMAGES_RATE=1000 \
    ENTITIES_IMAGES_AUTH="${5:-}" ENTITIES_IMAGES_ARGS="--seed 3" ENTITIES_IMAGES_TARBALL="$tarball" \
    ACTION_REPOSITORY=your-org/entities-images-contract ACTION_REF=v0.0.0 GITHUB_OUTPUT="$dir/output" \
    GITHUB_STEP_SUMMARY="$dir/summary.md" bash "$here/action_gate.sh" >"$dir/log" 2>&1) || status=$?
  [ "$status" = "$3" ] || fail "$1: exit $status, expected $3: $(cat "$dir/log")"
  grep -qx "verdict=$4" "$dir/output" || fail "$1: the step's output is not verdict=$4: $(cat "$dir/output" 2>/dev/null)"
  [ -s "$dir/contract-junit.xml" ] && [ -s "$dir/contract.json" ] || fail "$1: the reports are missing"
  [ "$(stat -c %U "$dir/contract-junit.xml")" = nobody ] || fail "$1: the reports were not written as nobody"
  if grep -q "c2VjcmV0OnZhbHVl" "$dir"/contract* "$dir/summary.md" 2>/dev/null; then fail "$1: the secret is in a report"; fi
  echo "action gate test: $1: exit $status, verdict=$4, reports written by nobody"
}

# The action sends the secret as Authorization: a mock that knows the user (DRF answers 403 to unknown ones).
listen "$work/mock.log" "$unpacked/bin/entities-images-mock" --records 2000 --seed 5 --quiet --user secret:value
action pass "$url" 0 PASS "Basic c2VjcmV0OnZhbHVl"
grep -q "^## .*PASS" "$work/pass/summary.md" || fail "no Markdown summary"
broken=$(dirname "$here")/build/dev/contract/tests/entimg-broken-server
if [ -x "$broken" ]; then
  listen "$work/broken.log" "$broken" --variant next-offset-off-by-one --records 2000 --seed 5
  action fail "$url" 1 FAIL
  grep -q '<failure message="expected next to carry offset' "$work/fail/contract-junit.xml" || fail "no failure in the JUnit report"
fi
action error http://127.0.0.1:1 2 ERROR

# The GitLab template's script: the tarball's own gate, beside its suite, as nobody, in the job's folder.
job=$work/gitlab
mkdir -p "$job"
tar -xzf "$tarball" -C "$job"
chown -R nobody "$job"
listen "$work/mock2.log" "$unpacked/bin/entities-images-mock" --records 2000 --seed 5 --quiet
name=$(basename "$unpacked")
(cd "$job" && as_nobody ENTITIES_IMAGES_BASE_URL="$url" ENTITIES_IMAGES_RATE=1000 "./$name/bin/entities-images-gate" \
  --mode quick >"$job/log" 2>&1) || fail "the GitLab job's gate failed: $(cat "$job/log")"
[ -s "$job/contract-junit.xml" ] || fail "the GitLab job's gate wrote no JUnit report"
echo "action gate test: the GitLab template's script passed as nobody"
echo "action gate test: PASS"
