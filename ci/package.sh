#!/usr/bin/env bash
# Builds the Debian package build/package/entities-images_<version>_amd64.deb: both programs (release
# build), the schema files and man pages made from their --help (cmake --workflow --preset package).
# With --test it then installs the package with apt-get from a clean directory and runs both programs
# from PATH against each other: the mock on an ephemeral port, the suite in quick mode and a full walk.
# Usage: ci/package.sh [--test]      Prints the package's path on its last line.
set -euo pipefail
cd "$(dirname "$0")/.."
bash ci/setup.sh --tools
cmake --workflow --preset package | grep -E '^CPack: - package|error' || true
deb=$(ls -t "$PWD"/build/package/entities-images_*_amd64.deb | head -n 1)
[ "${1:-}" = "--test" ] && bash ci/package_test.sh "$deb"
echo "$deb"
