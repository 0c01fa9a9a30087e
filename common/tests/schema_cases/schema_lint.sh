#!/usr/bin/env bash
# Lints schema/openapi.yaml with Redocly CLI (recommended rules, redocly.yaml) and Spectral (spectral:oas,
# .spectral.yaml), as a team adopting the document would; fails on any error of either (docs/schema.md).
# Usage: schema_lint.sh [DOCUMENT]       schema_lint.sh --self-test  (a document with an error must fail)
set -euo pipefail
repo=$(cd "$(dirname "$0")/../../.." && pwd)
export REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true NO_UPDATE_NOTIFIER=1
bin="$repo/node_modules/.bin"

lint() {
  local doc=$1 status=0 out
  # Redocly reads redocly.yaml from the working directory.
  out=$(cd "$repo" && "$bin/redocly" lint "$doc" --format=summary 2>&1) || status=1
  echo "$out" | grep -E "error|warning|valid" | grep -v "Node.js" | sed 's/^/redocly: /' || true
  out=$(cd "$repo" && "$bin/spectral" lint "$doc" --ruleset "$repo/.spectral.yaml" --fail-severity=error 2>&1) || status=1
  echo "$out" | tail -3 | sed 's/^/spectral: /'
  return $status
}

if [ "${1:-}" = "--self-test" ]; then
  tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
  cp "$repo"/schema/*.json "$tmp"/
  # Two operations with one operationId: an error for both linters.
  sed 's/operationId: listEntityImages$/operationId: getApiRoot/' "$repo/schema/openapi.yaml" > "$tmp/openapi.yaml"
  cmp -s "$repo/schema/openapi.yaml" "$tmp/openapi.yaml" && { echo "schema_lint: the self-test found nothing to break"; exit 1; }
  lint "$tmp/openapi.yaml" | grep -E "error|✖" || true
  if lint "$tmp/openapi.yaml" >/dev/null 2>&1; then echo "schema_lint: a document with an error passed"; exit 1; fi
  echo "schema_lint: a document with an error fails, as it should"
  exit 0
fi
lint "${1:-$repo/schema/openapi.yaml}"
echo "schema_lint: 0 errors from Redocly $("$bin/redocly" --version 2>/dev/null | tail -1) and Spectral $("$bin/spectral" --version)"
