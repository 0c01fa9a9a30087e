#!/usr/bin/env bash
# The shell of the GitHub Action (action.yml): which portable tarball to run, then ci/gate.sh with the action's
# inputs, and the verdict as the step's output. Tested locally by ci/action_gate_test.sh against the mock.
# Environment (set by action.yml from its inputs): ENTITIES_IMAGES_BASE_URL, ENTITIES_IMAGES_AUTH,
# ENTITIES_IMAGES_RATE, ENTITIES_IMAGES_MODE, ENTITIES_IMAGES_ARGS, ENTITIES_IMAGES_TARBALL (a path or URL; when
# empty, the release asset of ACTION_REF, the action's own tag, of ACTION_REPOSITORY), GITHUB_OUTPUT.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
case ${ENTITIES_IMAGES_MODE:-quick} in
  quick | full) ;;
  *) echo "::error title=entities-images-contract::input mode is quick or full, got '${ENTITIES_IMAGES_MODE}'"; exit 2 ;;
esac
if [ -z "${ENTITIES_IMAGES_TARBALL:-}" ]; then
  ref=${ACTION_REF:-}
  if [[ $ref =~ ^v([0-9]+\.[0-9]+\.[0-9]+)$ ]]; then
    version=${BASH_REMATCH[1]}
    ENTITIES_IMAGES_TARBALL="https://github.com/$ACTION_REPOSITORY/releases/download/$ref/entities-images-$version-linux-x86_64.tar.gz"
  else
    # A branch or commit of the action: its repository's latest release (gh is on GitHub's runners).
    dir=$(mktemp -d)
    gh release download --repo "$ACTION_REPOSITORY" --pattern 'entities-images-*-linux-x86_64.tar.gz' --dir "$dir" ||
      { echo "::error title=entities-images-contract::no portable tarball: pin the action to a release tag (vX.Y.Z) or give the input tarball"; exit 2; }
    ENTITIES_IMAGES_TARBALL=$(ls "$dir"/entities-images-*-linux-x86_64.tar.gz | head -n 1)
  fi
fi
export ENTITIES_IMAGES_TARBALL
read -r -a extra <<<"${ENTITIES_IMAGES_ARGS:-}"
status=0
bash "$here/gate.sh" --mode "${ENTITIES_IMAGES_MODE:-quick}" "${extra[@]}" || status=$?
case $status in 0) verdict=PASS ;; 1) verdict=FAIL ;; *) verdict=ERROR ;; esac  # the suite's exit codes
echo "verdict=$verdict" >>"${GITHUB_OUTPUT:-/dev/null}"
exit "$status"
