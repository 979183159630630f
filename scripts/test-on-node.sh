#!/usr/bin/env bash
# Runs the whole vitest suite (both projects) on another Node version, by
# default the floor that package.json's "engines" claims (">=22.19" → 22.19,
# npm picks its latest patch). The runtime comes from the npm registry's `node`
# package into a temporary directory, like the pinned Node 24 devDependency;
# dist/ must be built (npm test builds it). CI runs this after `npm test`, so
# "engines" states only what CI has run.
#
#   scripts/test-on-node.sh            # the engines floor
#   scripts/test-on-node.sh 22         # any version npm can resolve
set -euo pipefail
cd "$(dirname "$0")/.."

version="${1:-$(node -p 'require("./package.json").engines.node.replace(/^>=\s*/, "")')}"
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
echo '{"private": true, "allowScripts": {"node": true}}' >"$dir/package.json"
npm install --prefix "$dir" --no-save --no-audit --no-fund --loglevel=error "node@$version"

# Child processes the tests start (the CLI, npm, npx) find this Node first too.
export PATH="$dir/node_modules/.bin:$PATH"
echo "Node $(node --version) from the npm registry's node@$version"
node node_modules/vitest/vitest.mjs run
