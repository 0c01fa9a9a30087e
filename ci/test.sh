#!/usr/bin/env bash
# Sets up everything and runs the whole test suite: formatting, the dev build (warnings are
# errors) with every test, then the address+undefined-sanitizer build with every test.
set -euo pipefail
cd "$(dirname "$0")/.."
bash ci/setup.sh
bash ci/format.sh
cmake --workflow --preset dev
cmake --workflow --preset asan
