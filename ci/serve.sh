#!/usr/bin/env bash
# Sets up everything, builds the mock and serves the default collection (300,000 generated
# records) at http://127.0.0.1:8000/edw/api/entities-images/ until Ctrl-C.
# Extra arguments go to the mock, e.g. ci/serve.sh --port 9000 --records 1000000
set -euo pipefail
cd "$(dirname "$0")/.."
bash ci/setup.sh --tools
# Only the mock and what it links (about 40 s on 2 cores the first time; the tests are not built).
cmake --preset release >/dev/null
cmake --build --preset release --target entities-images-mock
exec build/release/mock/entities-images-mock "$@"
