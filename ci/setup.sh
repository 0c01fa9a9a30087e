#!/usr/bin/env bash
# Installs everything the project needs on Debian 12, idempotently. Run as root.
# Debian packages come from apt; valijson's headers are unpacked on their own, because the
# libvalijson-dev package depends on Qt, Poco, yaml-cpp and others that we never use.
#
# Usage: ci/setup.sh            everything: build, tests, benchmarks
#        ci/setup.sh --tools    only what building the mock and the suite needs (for a CI gate job)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
tools_only=false
[ "${1:-}" = "--tools" ] && tools_only=true

packages=(
  build-essential cmake ninja-build pkg-config git ca-certificates curl
  libcpp-httplib-dev nlohmann-json3-dev catch2 libssl-dev zlib1g-dev libbrotli-dev
  libpcre2-dev libjemalloc-dev libsimdjson-dev libcli11-dev libexpat1-dev help2man patchelf
)
# patchelf: ci/portable.sh gives the libraries the portable tarball carries their run path ($ORIGIN).
if ! $tools_only; then
  packages+=(
    clang-format clang-14 libclang-rt-14-dev universal-ctags
    python3 python3-django python3-djangorestframework python3-django-filters python3-pil
    wrk nginx-light time libjpeg-turbo-progs chromium prometheus
    emscripten node-acorn default-jre-headless libxml2-utils mmdebstrap
  )
  # libxml2-utils: xmllint checks the JUnit report against Ant's JUnit.xsd (contract.junit_report_dashboards).
  # mmdebstrap: ci/portable_test.sh unpacks a fresh Debian 13 root file system to run the portable tarball in.
  # emscripten (3.1.6, clang 14) builds the mock's core as WebAssembly for the npm package (the wasm preset);
  # its optimiser needs node-acorn, found through NODE_PATH=/usr/share/nodejs (set by the preset).
  # default-jre-headless: runs the jar the npm package specmatic ships (mock.openapi_specmatic, bench/openapi.sh).
  # universal-ctags: common.function_length finds where each C++ function ends (no function over 60 lines).
  # prometheus: the monitor's tests run their own server and promtool (where systemd runs, Debian's package
  # also starts its service on :9090; the tests never use it).
  # Node.js may already come from elsewhere (this image has NodeSource's, which bundles npm).
  command -v npm >/dev/null 2>&1 || packages+=(nodejs npm)
fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# valijson: headers only, from Debian's own package, into /opt/valijson/include.
if [ ! -f /opt/valijson/include/valijson/validator.hpp ]; then
  echo "setup: unpacking valijson headers from Debian's libvalijson-dev"
  tmp=$(mktemp -d); chmod 755 "$tmp"
  (cd "$tmp" && apt-get download libvalijson-dev >/dev/null)
  dpkg-deb -x "$tmp"/libvalijson-dev_*.deb "$tmp/root"
  mkdir -p /opt/valijson
  rm -rf /opt/valijson/include
  cp -r "$tmp/root/usr/include" /opt/valijson/include
  rm -rf "$tmp"
fi

# npm tools used by the tests (@stoplight/prism-cli, specmatic, @redocly/cli, @stoplight/spectral-cli: the
# OpenAPI document as the ecosystem's tools read it, docs/schema.md; ajv-cli: a second, independent JSON Schema validator; playwright-core: drives
# Debian's Chromium in the browser tests; ctrf: the schema the suite's CTRF report is validated against;
# json-schema-to-typescript and typescript: the schema's TypeScript types and the tsc checks; msw and pako: the
# npm package's peer dependency and its deflate, installed next to it by its tests from npm's cache; esbuild:
# the package's CommonJS entries at build time; jest, jest-environment-jsdom, jest-fixed-jsdom, vitest, jsdom, vite,
# webpack and webpack-cli: the package's tests under the runners and bundlers frontend teams use).
# Installed again whenever package-lock.json is newer than the install.
if ! $tools_only && [ -f "$here/package.json" ] &&
   { [ ! -f "$here/node_modules/.package-lock.json" ] ||
     [ "$here/package-lock.json" -nt "$here/node_modules/.package-lock.json" ]; }; then
  echo "setup: installing npm packages from package-lock.json"
  (cd "$here" && npm ci --no-audit --no-fund --loglevel=error)
fi
echo "setup: ok"
