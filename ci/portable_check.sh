#!/usr/bin/env bash
# Checks an unpacked portable tarball (ci/portable.sh runs it on every build, and fails the build with it):
#  - every ELF file in bin/ and lib/ needs (NEEDED) only the libraries a current glibc distribution has
#    everywhere (glibc's, libstdc++, libgcc_s, OpenSSL 3, zlib) and those carried in lib/;
#  - the programs need none of PCRE2, jemalloc, Brotli and Expat (linked statically) and find lib/ through their run
#    path $ORIGIN/../lib, each carried library its neighbours through $ORIGIN;
#  - no file asks for a symbol version past GLIBC_2.34 or GLIBCXX_3.4.30 (Ubuntu 22.04's glibc and GCC 12's
#    libstdc++), nor CXXABI_1.3.13.
# Prints each file's NEEDED list and highest versions. Exit 1 on the first kind of problem found, naming it.
# Usage: ci/portable_check.sh DIR        ci/portable_check.sh --allowed (the allowed NEEDED names, one a line)
set -euo pipefail
ALLOWED="libc.so.6 libm.so.6 libpthread.so.0 libdl.so.2 librt.so.1 ld-linux-x86-64.so.2 libstdc++.so.6 libgcc_s.so.1
libssl.so.3 libcrypto.so.3 libz.so.1"
MAX_GLIBC=2.34
MAX_GLIBCXX=3.4.30
MAX_CXXABI=1.3.13
if [ "${1:-}" = "--allowed" ]; then
  tr ' ' '\n' <<<"$ALLOWED" | sed '/^$/d'
  exit 0
fi
dir=${1:?usage: ci/portable_check.sh DIR}
problems=0
problem() { echo "portable check: $*" >&2; problems=$((problems + 1)); }

# The highest version of a family (GLIBC, GLIBCXX, CXXABI) a file asks for: its version needs (.gnu.version_r).
highest() {
  readelf -V -W "$1" | sed -n "s/.*Name: $2_\([0-9.]*\) .*/\1/p" | sort -V | tail -n 1
}
# Whether version $1 is past $2.
past() { [ "$1" != "$2" ] && [ "$(printf '%s\n%s\n' "$1" "$2" | sort -V | tail -n 1)" = "$1" ]; }

for file in "$dir"/bin/* "$dir"/lib/*; do
  [ -f "$file" ] && head -c 4 "$file" | grep -q ELF || continue
  rel=${file#"$dir"/}
  needed=$(readelf -d "$file" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')
  runpath=$(readelf -d "$file" | sed -n 's/.*(RUNPATH).*\[\(.*\)\]/\1/p')
  for soname in $needed; do
    if ! grep -qxF "$soname" <(tr ' ' '\n' <<<"$ALLOWED") && [ ! -e "$dir/lib/$soname" ]; then
      problem "$rel needs $soname, which is neither allowed nor carried in lib/"
    fi
  done
  case $rel in
    bin/*)
      for static in libpcre2 libjemalloc libbrotli libexpat; do
        [[ " $needed" == *" $static"* ]] && problem "$rel needs ${static}*: it should be linked statically"
      done
      [ -z "$needed" ] || [ "$runpath" = '$ORIGIN/../lib' ] || problem "$rel has run path '$runpath', not \$ORIGIN/../lib"
      ;;
    lib/*) [ "$runpath" = '$ORIGIN' ] || problem "$rel has run path '$runpath', not \$ORIGIN" ;;
  esac
  glibc=$(highest "$file" GLIBC)
  glibcxx=$(highest "$file" GLIBCXX)
  cxxabi=$(highest "$file" CXXABI)
  [ -n "$glibc" ] && past "$glibc" "$MAX_GLIBC" && problem "$rel asks for GLIBC_$glibc, past GLIBC_$MAX_GLIBC"
  [ -n "$glibcxx" ] && past "$glibcxx" "$MAX_GLIBCXX" && problem "$rel asks for GLIBCXX_$glibcxx, past GLIBCXX_$MAX_GLIBCXX"
  [ -n "$cxxabi" ] && past "$cxxabi" "$MAX_CXXABI" && problem "$rel asks for CXXABI_$cxxabi, past CXXABI_$MAX_CXXABI"
  echo "$rel: NEEDED ${needed:-(none)}; highest GLIBC_${glibc:-none} GLIBCXX_${glibcxx:-none} CXXABI_${cxxabi:-none}"
done
if [ "$problems" -gt 0 ]; then
  echo "portable check: FAIL ($problems problems)" >&2
  exit 1
fi
echo "portable check: PASS"
