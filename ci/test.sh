#!/usr/bin/env bash
# Sets up everything and runs the whole test suite: formatting, then the dev build (warnings are errors)
# with every test. With --sanitizers: the address+undefined-sanitizer build with every test instead (CI
# runs both: .ci/run).
set -euo pipefail
cd "$(dirname "$0")/.."
case ${1:-} in
  "") preset=dev ;;
  --sanitizers) preset=asan ;;
  -h | --help) echo "usage: ci/test.sh [--sanitizers]"; exit 0 ;;
  *) echo "usage: ci/test.sh [--sanitizers]" >&2; exit 2 ;;
esac
bash ci/setup.sh
bash ci/format.sh
cmake --workflow --preset "$preset"
