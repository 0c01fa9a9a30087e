#!/usr/bin/env bash
# Installs a built package and runs both programs from PATH against each other, from a clean directory
# (nothing of the source tree is used). Usage: ci/package_test.sh PATH/entities-images_V_amd64.deb
set -euo pipefail
deb=$(realpath "$1")
work=$(mktemp -d)
mock_pid=
cleanup() {
  [ -n "$mock_pid" ] && kill "$mock_pid" 2>/dev/null && wait "$mock_pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
cp "$deb" "$work/"
cd "$work"
chmod 755 "$work"  # apt's sandbox user reads the .deb from here
export DEBIAN_FRONTEND=noninteractive
apt-get install -y -qq --reinstall --no-install-recommends "./$(basename "$deb")" >/dev/null
fail() { echo "package test: $*" >&2; exit 1; }

version=$(dpkg-deb -f "$deb" Version)
for program in entities-images-mock entities-images-contract; do
  [ "$(command -v "$program")" = "/usr/bin/$program" ] || fail "$program is not installed in /usr/bin"
  [ "$("$program" --version)" = "$program $version" ] || fail "$program --version does not say $version"
  [ -s "/usr/share/man/man1/$program.1.gz" ] || fail "no man page for $program"
done
[ -f /usr/share/entities-images/schema/image-record.schema.json ] || fail "schema files not installed"

entities-images-mock --port 0 --records 5000 --seed 3 --quiet >mock.out 2>mock.err &
mock_pid=$!
url=
for _ in $(seq 200); do
  url=$(sed -n 's/^listening on //p' mock.out)
  [ -n "$url" ] && break
  kill -0 "$mock_pid" 2>/dev/null || fail "the mock stopped: $(cat mock.err)"
  sleep 0.05
done
[ -n "$url" ] || fail "the mock did not say where it listens"

entities-images-contract --base-url "$url" --seed 1 --no-progress --json quick.json >quick.txt ||
  fail "quick run against the installed mock failed: $(cat quick.txt)"
entities-images-contract --base-url "$url" --mode full --walk-limit 500 --seed 1 --no-progress >full.txt ||
  fail "full run against the installed mock failed: $(cat full.txt)"
grep -q '"version": "'"$version"'"' quick.json || fail "the JSON report does not carry version $version"
echo "package test: $(basename "$deb") installed; both programs from PATH agree ($(tail -n 1 full.txt))"
