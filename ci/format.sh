#!/usr/bin/env bash
# Checks that every C++ file is formatted with .clang-format; with --fix, formats them.
set -euo pipefail
cd "$(dirname "$0")/.."
# Tracked files and new ones not yet added (but not ignored ones), so --fix before a first commit works.
mapfile -t files < <(git ls-files --cached --others --exclude-standard '*.cpp' '*.hpp')
if [ "${1:-}" = "--fix" ]; then
  clang-format -i "${files[@]}"
else
  clang-format --dry-run -Werror "${files[@]}"
  echo "format: ${#files[@]} files formatted as .clang-format says"
fi
