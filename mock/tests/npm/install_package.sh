#!/usr/bin/env bash
# Installs the npm package from its tarball as a frontend team would, into an empty app folder next to msw:
# npm install ./entities-images-mock-<version>.tgz msw. Packages come from npm's cache when `npm ci`
# (ci/setup.sh) put them there, else from the registry. The app's tests (app/) are copied in beside them.
# Usage: install_package.sh TARBALL_DIR APP_DIR
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
tarball=$(ls "$(cd "$1" && pwd)"/entities-images-mock-*.tgz 2>/dev/null | head -1)
[ -n "$tarball" ] || { echo "no entities-images-mock-*.tgz in $1: build it with cmake --workflow --preset wasm" >&2; exit 1; }
app=$2
rm -rf "$app"
mkdir -p "$app"
cp -r "$here"/app/. "$app"/
echo '{"name": "frontend-app", "private": true, "type": "module"}' > "$app/package.json"
msw=$(node -p "require('$root/package.json').devDependencies.msw")
cd "$app"
npm install --prefer-offline --no-audit --no-fund --loglevel=error "$tarball" "msw@$msw"
echo "installed $(basename "$tarball") and msw@$msw in $app"
