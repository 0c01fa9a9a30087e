#!/usr/bin/env bash
# Gates a deployment: runs the suite against $ENTITIES_IMAGES_BASE_URL, with the Authorization header
# taken from $ENTITIES_IMAGES_AUTH when it is set. Writes contract-junit.xml, contract.json and contract.html
# (for people: docs/reports.md), and in GitHub Actions the job's summary ($GITHUB_STEP_SUMMARY).
# Exit: 0 pass, 1 contract failure, 2 usage/connection error.
# Which suite: the package $ENTITIES_IMAGES_DEB when set (built once by ci/package.sh, e.g. a CI
# artifact: installed here, nothing compiled); else entities-images-contract on PATH; else it is built
# from this source tree.
# Extra arguments go to the suite, e.g. ci/gate.sh --mode full --walk-limit 100 --rate 20
set -euo pipefail
cd "$(dirname "$0")/.."
: "${ENTITIES_IMAGES_BASE_URL:?set ENTITIES_IMAGES_BASE_URL to the deployment, e.g. https://example.org}"
if [ -n "${ENTITIES_IMAGES_DEB:-}" ]; then
  deb=$(realpath "$ENTITIES_IMAGES_DEB")
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --reinstall --no-install-recommends "$deb" >/dev/null
  suite=/usr/bin/entities-images-contract
elif command -v entities-images-contract >/dev/null 2>&1; then
  suite=$(command -v entities-images-contract)
else
  bash ci/setup.sh --tools
  bash ci/build.sh release >/dev/null
  suite=build/release/contract/entities-images-contract
fi
auth=()
[ -n "${ENTITIES_IMAGES_AUTH:-}" ] && auth=(--header-from-env Authorization=ENTITIES_IMAGES_AUTH)
summary=()
[ -n "${GITHUB_STEP_SUMMARY:-}" ] && summary=(--markdown "$GITHUB_STEP_SUMMARY")
exec "$suite" --base-url "$ENTITIES_IMAGES_BASE_URL" \
  --rate "${ENTITIES_IMAGES_RATE:-10}" --deadline 600 "${auth[@]}" \
  --junit contract-junit.xml --json contract.json --html contract.html "${summary[@]}" --no-progress "$@"
