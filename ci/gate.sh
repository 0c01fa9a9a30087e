#!/usr/bin/env bash
# Gates a deployment: builds the suite and runs it against $ENTITIES_IMAGES_BASE_URL, with the
# Authorization header taken from $ENTITIES_IMAGES_AUTH when it is set. Writes
# contract-junit.xml and contract.json. Exit: 0 pass, 1 contract failure, 2 usage/connection error.
# Extra arguments go to the suite, e.g. ci/gate.sh --mode full --walk-limit 100 --rate 20
set -euo pipefail
cd "$(dirname "$0")/.."
: "${ENTITIES_IMAGES_BASE_URL:?set ENTITIES_IMAGES_BASE_URL to the deployment, e.g. https://example.org}"
bash ci/setup.sh --tools
bash ci/build.sh release >/dev/null
auth=()
[ -n "${ENTITIES_IMAGES_AUTH:-}" ] && auth=(--header-from-env Authorization=ENTITIES_IMAGES_AUTH)
exec build/release/contract/entities-images-contract --base-url "$ENTITIES_IMAGES_BASE_URL" \
  --rate "${ENTITIES_IMAGES_RATE:-10}" --deadline 600 "${auth[@]}" \
  --junit contract-junit.xml --json contract.json --no-progress "$@"
