#!/usr/bin/env bash
# The tarball is what a registry would get (mock.npm.publishable): README, LICENSE, the types, both entries
# (ES module and CommonJS) and core.wasm; its version is CMake's project() version (the one place it is
# written); the CommonJS entries hold no import.meta (Jest's CommonJS mode cannot parse it); it is at most
# 3 MB; and `npm publish --dry-run` accepts it, as the release workflow (.github/workflows/npm-release.yml) runs it.
# Usage: publishable.sh TARBALL_DIR PROJECT_VERSION
set -euo pipefail
tarball=$(ls "$1"/entities-images-mock-"$2".tgz)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
tar -xzf "$tarball" -C "$work"
fail=0
for file in README.md LICENSE package.json index.js index.cjs index.d.ts index.d.cts msw.js msw.cjs msw.d.ts msw.d.cts \
            entities-images.d.ts entities-images.d.cts environment.js node-global.js \
            inline-wasm.d.ts core/core.wasm core/core.mjs core/core-wasm.js bin/entities-images-mock.js; do
  [ -s "$work/package/$file" ] || { echo "FAIL: the tarball has no $file"; fail=1; }
done
version=$(node -p "require('$work/package/package.json').version")
[ "$version" = "$2" ] || { echo "FAIL: package.json says version $version, CMake $2"; fail=1; }
if grep -l "import\.meta" "$work"/package/*.cjs "$work"/package/core/core.mjs; then
  echo "FAIL: import.meta in the files above"; fail=1
fi
size=$(stat -c %s "$tarball")
[ "$size" -le 3000000 ] || { echo "FAIL: the tarball is $size bytes, over 3 MB"; fail=1; }
echo "tarball: $(basename "$tarball"), $size bytes, $(tar -tzf "$tarball" | wc -l) files"
if ! npm publish --dry-run --loglevel=warn "$tarball" >"$work/publish.log" 2>&1; then
  cat "$work/publish.log"
  echo "FAIL: npm publish --dry-run refused it"; fail=1
fi
[ $fail = 0 ] && echo "PASS: publishable"
exit $fail
