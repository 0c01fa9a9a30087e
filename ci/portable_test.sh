#!/usr/bin/env bash
# Runs the portable tarball's programs in a fresh minimal root file system of another distribution than the one
# they were built on: Debian 13 (trixie, glibc 2.41, GCC 14's libstdc++, OpenSSL 3.5) holding only what the
# tarball may expect, the packages libc6, libgcc-s1, libstdc++6, libssl3t64 and zlib1g and what they depend on,
# unpacked by mmdebstrap (--variant=extract: no shell, no package manager, nothing else), with the tarball unpacked
# into /opt. Then, from outside (chroot), without any other library installed:
#  - the dynamic loader lists where each program's libraries come from: every one is the root's allowed
#    libraries or the tarball's lib/ (never the build machine's);
#  - both programs say their version; the tarball's mock serves on a loopback port, and the tarball's suite
#    checks it in quick mode, writing its JUnit and JSON reports; a mock started outside the root (this build
#    machine's Debian 12) is checked too;
#  - ci/portable_check.sh is shown to fail on what it must refuse (a library not carried, a newer glibc symbol).
# Needs root (chroot, mount) and Debian's mirror (mmdebstrap), which CI has. Usage: ci/portable_test.sh TARBALL
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
tarball=$(realpath "$1")
suite=${ENTIMG_PORTABLE_SUITE:-trixie}
work=$(mktemp -d)
root=$work/root
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null; done
  mountpoint -q "$root/proc" && umount "$root/proc"
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "portable test: FAIL: $*" >&2; exit 1; }

echo "portable test: a $suite root file system with libc6, libgcc-s1, libstdc++6, libssl3t64, zlib1g only"
mmdebstrap --quiet --variant=extract --include=libc6,libgcc-s1,libstdc++6,libssl3t64,zlib1g \
  "$suite" "$root" http://deb.debian.org/debian >"$work/mmdebstrap.log" 2>&1 ||
  { cat "$work/mmdebstrap.log" >&2; fail "mmdebstrap could not make the root file system"; }
mkdir -p "$root/opt" "$root/tmp" "$root/proc"
# The merged /usr's links, which base-files would make: /lib64/ld-linux-x86-64.so.2 is every program's loader.
for dir in lib lib64; do [ -e "$root/$dir" ] || ln -s "usr/$dir" "$root/$dir"; done
tar -xzf "$tarball" -C "$root/opt"
name=$(basename "$tarball" .tar.gz)
opt=/opt/$name
mount -t proc proc "$root/proc"  # /proc/self/exe: the programs find their schema files beside themselves
in_root() { chroot "$root" "$@"; }
echo "portable test: the root holds $(find "$root/usr/lib" -name '*.so*' -type f | wc -l) shared library files:" \
  "$(find "$root/usr/lib" -name '*.so.*' -type f -printf '%f\n' | sort | tr '\n' ' ')"

# Where each program's libraries come from, as the root's own loader resolves them: each name the tarball's files
# need is the root's allowed library or the tarball's (what the root's libraries need in turn, libzstd for
# Debian 13's OpenSSL, is theirs).
ours=$(for file in "$root$opt"/bin/entities-images-* "$root$opt"/lib/*; do readelf -d "$file" 2>/dev/null; done |
  sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | sort -u)
loader=/lib64/ld-linux-x86-64.so.2
[ -e "$root$loader" ] || fail "no dynamic loader in the root"
for program in entities-images-mock entities-images-contract; do
  listed=$(in_root "$loader" --list "$opt/bin/$program") || fail "$program: the loader could not resolve it: $listed"
  echo "$listed" | sed "s/^/  $program: /"
  if grep -q "not found" <<<"$listed"; then fail "$program: a library is missing in the root"; fi
  while read -r soname _ path _; do
    [ -n "$path" ] && grep -qxF "$soname" <<<"$ours" || continue
    case $path in
      "$opt"/lib/* | "$opt"/bin/../lib/*) ;;
      *) grep -qxF "$soname" <(bash "$here/portable_check.sh" --allowed) ||
           fail "$program: $soname comes from $path, neither an allowed library nor the tarball's" ;;
    esac
  done < <(grep '=>' <<<"$listed")
done

version=$(sed -n 's/^entities-images-\([0-9.]*\)-linux-x86_64$/\1/p' <<<"$name")
for program in entities-images-mock entities-images-contract; do
  said=$(in_root "$opt/bin/$program" --version) || fail "$program --version failed: $said"
  [ "$said" = "$program $version" ] || fail "$program --version says '$said', not '$program $version'"
done

# The tarball's mock in the root, on an ephemeral loopback port; its suite in the root checks it.
. "$here/listen.sh"
check() {  # check URL WHAT: the tarball's suite, in the root, in quick mode against URL
  in_root "$opt/bin/entities-images-contract" --base-url "$1" --seed 1 --no-progress \
    --junit /tmp/contract-junit.xml --json /tmp/contract.json >"$work/check.txt" 2>&1 ||
    { cat "$work/check.txt" >&2; fail "the suite in the root failed against $2"; }
  grep -q '"failed": 0,' "$root/tmp/contract.json" || fail "the JSON report of the run against $2 has failures"
  grep -q '<testsuite ' "$root/tmp/contract-junit.xml" || fail "no JUnit report of the run against $2"
  echo "portable test: the suite in the root checked $2: $(tail -n 1 "$work/check.txt")"
}
listen "$work/mock-root.log" chroot "$root" "$opt/bin/entities-images-mock" --records 3000 --seed 3 --quiet
check "$url" "the tarball's mock in the root"
build_mock=$(dirname "$here")/build/portable/mock/entities-images-mock
if [ -x "$build_mock" ]; then
  listen "$work/mock-outside.log" "$build_mock" --records 3000 --seed 3 --quiet
  check "$url" "a mock outside the root (the build machine's)"
fi

# The check refuses what it must: a file needing a library neither allowed nor carried, and one asking for a
# newer glibc symbol (arc4random, GLIBC_2.36) than GLIBC_2.34.
bad=$work/bad
mkdir -p "$bad/bin" "$bad/lib"
cp "$(command -v xmllint)" "$bad/bin/needs-libxml2"
printf '#include <stdlib.h>\nint main(void) { return (int)(arc4random() & 1); }\n' >"$work/new.c"
cc -o "$bad/bin/needs-glibc-2.36" "$work/new.c"
if bash "$here/portable_check.sh" "$bad" >"$work/bad.txt" 2>&1; then fail "portable_check.sh passed files it must refuse"; fi
grep -q "needs libxml2.so.2, which is neither allowed nor carried" "$work/bad.txt" || fail "no libxml2 refusal: $(cat "$work/bad.txt")"
grep -q "asks for GLIBC_2.36, past GLIBC_2.34" "$work/bad.txt" || fail "no GLIBC_2.36 refusal: $(cat "$work/bad.txt")"
echo "portable test: portable_check.sh refuses a library not carried and GLIBC_2.36"
echo "portable test: PASS ($name in a fresh $suite root)"
