#!/usr/bin/env bash
# Builds the portable tarball build/portable/entities-images-<version>-linux-x86_64.tar.gz: both programs
# (the portable preset: PCRE2, jemalloc, Brotli and Expat linked statically, run path $ORIGIN/../lib), the gate script as
# bin/entities-images-gate, the schema files in share/entities-images/schema/, and in lib/ the shared libraries
# they need beyond glibc, libstdc++, libgcc_s, OpenSSL 3 and zlib (cpp-httplib and simdjson, of which Debian
# ships no static archive, and what those need), each found through its own run path $ORIGIN.
# Then ci/portable_check.sh fails the build when anything in it needs a library it neither carries nor may
# expect, or a symbol version past GLIBC_2.34 / GLIBCXX_3.4.30 (Ubuntu 22.04's). With --test, the tarball's
# programs are run in a fresh minimal root file system (ci/portable_test.sh), and the GitHub Action's and GitLab
# template's scripts as an unprivileged user (ci/action_gate_test.sh).
# Usage: ci/portable.sh [--test]      Prints the tarball's path on its last line.
set -euo pipefail
cd "$(dirname "$0")/.."
case ${1:-} in
  "" | --test) ;;
  *) echo "usage: ci/portable.sh [--test]" >&2; exit 2 ;;
esac
bash ci/setup.sh --tools >/dev/null
cmake --workflow --preset portable >build-portable.log 2>&1 || { cat build-portable.log >&2; rm -f build-portable.log; exit 1; }
rm -f build-portable.log

version=$(sed -n 's/^project([^)]* VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)
name=entities-images-$version-linux-x86_64
out=$PWD/build/portable
stage=$out/stage/$name
rm -rf "$out/stage"
mkdir -p "$stage/bin" "$stage/lib" "$stage/share/entities-images"
install -m 755 -s "$out/mock/entities-images-mock" "$out/contract/entities-images-contract" "$stage/bin/"
install -m 755 ci/gate.sh "$stage/bin/entities-images-gate"
cp -r schema "$stage/share/entities-images/schema"

# The libraries a file needs that no distribution can be expected to have: its NEEDED names outside the allowed
# ones (ci/portable_check.sh holds the list), copied in with what they need in turn, until nothing is missing.
allowed=$(bash ci/portable_check.sh --allowed)
carry() {
  local file=$1 soname path
  for soname in $(readelf -d "$file" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
    grep -qxF "$soname" <<<"$allowed" && continue
    [ -e "$stage/lib/$soname" ] && continue
    path=$(ldconfig -p | awk -v n="$soname" '$1 == n && /x86-64/ {print $NF; exit}')
    [ -n "$path" ] || { echo "portable: $file needs $soname, which this machine does not have" >&2; exit 1; }
    install -m 644 "$(readlink -f "$path")" "$stage/lib/$soname"
    patchelf --set-rpath '$ORIGIN' "$stage/lib/$soname"  # its own needs beside it
    strip --strip-unneeded "$stage/lib/$soname"
    carry "$stage/lib/$soname"
  done
}
for program in "$stage"/bin/entities-images-mock "$stage"/bin/entities-images-contract; do carry "$program"; done

bash ci/portable_check.sh "$stage"
tarball=$out/$name.tar.gz
tar -C "$out/stage" --owner=0 --group=0 --numeric-owner --sort=name -czf "$tarball" "$name"
if [ "${1:-}" = "--test" ]; then
  bash ci/portable_test.sh "$tarball"
  bash ci/action_gate_test.sh "$tarball"
fi
echo "$tarball"
