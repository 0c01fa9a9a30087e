#!/usr/bin/env bash
# Lints the CI files a user runs or copies (ctest's contract.ci_yaml_lint): action.yml, .github/workflows/*.yml and
# ci/examples/github-actions.yml against GitHub's schemas for actions and workflows (@action-validator/cli), the
# GitLab template alone and as ci/examples/gitlab-ci.yml includes it against GitLab's (gitlab-ci-local --list
# validates the pipeline with GitLab's JSON schema). Each linter is shown to refuse a broken copy.
# Exit 77 (skipped, saying so) without the npm packages (ci/setup.sh installs them from package-lock.json).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
validator=$root/node_modules/.bin/action-validator
gitlab=$root/node_modules/.bin/gitlab-ci-local
for tool in "$validator" "$gitlab"; do
  [ -x "$tool" ] || { echo "SKIP: $tool is not installed (ci/setup.sh installs it)"; exit 77; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
passed=0
fail() { echo "FAIL: $*"; echo "$passed passed, 1 failed"; exit 1; }

for file in "$root/action.yml" "$root"/.github/workflows/*.yml "$root/ci/examples/github-actions.yml"; do
  "$validator" "$file" >"$work/out" 2>&1 || fail "${file#"$root"/}: $(cat "$work/out")"
  echo "PASS  ${file#"$root"/} (GitHub's schema)"
  passed=$((passed + 1))
done
mkdir -p "$work/broken"
sed 's/^      shell: bash$//' "$root/action.yml" >"$work/broken/action.yml"
"$validator" "$work/broken/action.yml" >/dev/null 2>&1 && fail "action-validator passed an action step without its shell"

# gitlab-ci-local reads a pipeline from a git repository's .gitlab-ci.yml (and names its remote; nothing is fetched).
gitlab_lint() {  # gitlab_lint NAME FILE...: FILE is .gitlab-ci.yml, the others beside it
  local dir=$work/$1
  mkdir -p "$dir"
  cp "$2" "$dir/.gitlab-ci.yml"
  shift 2
  [ $# -eq 0 ] || cp "$@" "$dir/"
  (cd "$dir" && git init -q && git add -A && git -c user.email=ci@localhost -c user.name=ci commit -q -m lint &&
    git remote add origin https://gitlab.example.org/group/project.git &&
    "$gitlab" --list) >"$dir.out" 2>&1
}
template=$root/ci/templates/entities-images-contract.gitlab-ci.yml
gitlab_lint template "$template" || fail "the GitLab template: $(cat "$work/template.out")"
grep -q "json schema validated" "$work/template.out" || fail "gitlab-ci-local did not validate the template: $(cat "$work/template.out")"
grep -q "^entities-images-contract " "$work/template.out" || fail "the template has no job entities-images-contract"
echo "PASS  ci/templates/entities-images-contract.gitlab-ci.yml (GitLab's schema)"
passed=$((passed + 1))
# The example includes the template from a release's URL; here from beside it.
sed 's|  - remote: ".*/ci/templates/entities-images-contract.gitlab-ci.yml"|  - local: /entities-images-contract.gitlab-ci.yml|' \
  "$root/ci/examples/gitlab-ci.yml" >"$work/example.yml"
grep -q "local: /entities-images-contract.gitlab-ci.yml" "$work/example.yml" || fail "the example does not include the template"
gitlab_lint example "$work/example.yml" "$template" || fail "the GitLab example: $(cat "$work/example.out")"
grep -q "^entities-images-contract " "$work/example.out" || fail "the example's pipeline has no job entities-images-contract"
echo "PASS  ci/examples/gitlab-ci.yml with the template (GitLab's schema)"
passed=$((passed + 1))
sed 's/^      junit: contract-junit.xml$/      junitt: contract-junit.xml/' "$template" >"$work/broken.yml"
gitlab_lint broken "$work/broken.yml" && fail "gitlab-ci-local passed a template with an unknown report kind"
echo "PASS  both linters refuse a broken copy"
echo "$((passed + 1)) passed, 0 failed"
