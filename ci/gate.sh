#!/usr/bin/env bash
# Gates a deployment: runs the suite against $ENTITIES_IMAGES_BASE_URL, with the Authorization header
# taken from $ENTITIES_IMAGES_AUTH when it is set. Writes contract-junit.xml, contract.json and contract.html
# into the current folder (for people: docs/reports.md), and in GitHub Actions the job's summary
# ($GITHUB_STEP_SUMMARY). Exit: 0 pass, 1 contract failure, 2 usage/connection error.
# Which suite, the first of:
#  - $ENTITIES_IMAGES_TARBALL: the portable tarball (ci/portable.sh; a release's asset), a path or an
#    http(s) URL, unpacked into a temporary folder: runs on any current glibc distribution, no root needed;
#  - the suite beside this script: this script is the portable tarball's bin/entities-images-gate;
#  - $ENTITIES_IMAGES_DEB: the Debian package (ci/package.sh), installed with apt-get (root, Debian 12);
#  - entities-images-contract on PATH;
#  - built from this source tree (ci/setup.sh installs Debian 12's packages: root).
# $ENTITIES_IMAGES_RATE: requests a second (default 10). Extra arguments go to the suite, e.g.
# ci/gate.sh --mode full --walk-limit 100 --rate 20
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
: "${ENTITIES_IMAGES_BASE_URL:?set ENTITIES_IMAGES_BASE_URL to the deployment, e.g. https://example.org}"
fail() { echo "gate: $*" >&2; exit 2; }

unpacked=
trap '[ -n "$unpacked" ] && rm -rf "$unpacked"' EXIT
# The tarball's suite: unpacked from a path or downloaded (curl or wget), as whoever runs this.
from_tarball() {
  local source=$1 file
  unpacked=$(mktemp -d)
  case $source in
    http://* | https://*)
      file=$unpacked/entities-images.tar.gz
      if command -v curl >/dev/null 2>&1; then
        curl -fsSL --retry 3 -o "$file" "$source" || fail "cannot download $source"
      elif command -v wget >/dev/null 2>&1; then
        wget -q -O "$file" "$source" || fail "cannot download $source"
      else
        fail "neither curl nor wget to download $source"
      fi
      ;;
    *) file=$source; [ -f "$file" ] || fail "no tarball at $file" ;;
  esac
  tar -xzf "$file" -C "$unpacked" || fail "$source is not a portable tarball (tar.gz)"
  suite=$(ls "$unpacked"/entities-images-*/bin/entities-images-contract 2>/dev/null | head -n 1)
  [ -n "$suite" ] || fail "$source holds no entities-images-*/bin/entities-images-contract"
}

if [ -n "${ENTITIES_IMAGES_TARBALL:-}" ]; then
  from_tarball "$ENTITIES_IMAGES_TARBALL"
elif [ -x "$here/entities-images-contract" ]; then
  suite=$here/entities-images-contract
elif [ -n "${ENTITIES_IMAGES_DEB:-}" ]; then
  deb=$(realpath "$ENTITIES_IMAGES_DEB")
  [ "$(id -u)" = 0 ] || fail "installing $deb needs root; give ENTITIES_IMAGES_TARBALL (the portable tarball) instead"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --reinstall --no-install-recommends "$deb" >/dev/null
  suite=/usr/bin/entities-images-contract
elif command -v entities-images-contract >/dev/null 2>&1; then
  suite=$(command -v entities-images-contract)
else
  [ -f "$here/setup.sh" ] || fail "no suite: give ENTITIES_IMAGES_TARBALL, or put entities-images-contract on PATH"
  [ "$(id -u)" = 0 ] || fail "building the suite needs root for its packages (ci/setup.sh); give ENTITIES_IMAGES_TARBALL instead"
  bash "$here/setup.sh" --tools
  bash "$here/build.sh" release >/dev/null
  suite=$here/../build/release/contract/entities-images-contract
fi
auth=()
[ -n "${ENTITIES_IMAGES_AUTH:-}" ] && auth=(--header-from-env Authorization=ENTITIES_IMAGES_AUTH)
summary=()
[ -n "${GITHUB_STEP_SUMMARY:-}" ] && summary=(--markdown "$GITHUB_STEP_SUMMARY")
status=0
"$suite" --base-url "$ENTITIES_IMAGES_BASE_URL" \
  --rate "${ENTITIES_IMAGES_RATE:-10}" --deadline 600 "${auth[@]}" \
  --junit contract-junit.xml --json contract.json --html contract.html "${summary[@]}" --no-progress "$@" || status=$?
exit "$status"
