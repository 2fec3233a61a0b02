#!/usr/bin/env bash
# The newest LTS of Node (24) beside the one that runs the suite: the type check, the unit tests
# (src/**/*.test.ts) and a smoke test of the real service (scripts/smoke.ts). The binary comes from
# the npm registry (the node-<platform>-<arch> package the `node` package itself installs), kept
# in $TEST_DATA/node-lts. Run by scripts/test.sh when CI=true (locally: TEST_NODE_LTS=1).
set -euo pipefail
cd "$(dirname "$0")/.."

TEST_DATA="${TEST_DATA:-$PWD/.test-data}"
LTS_MAJOR="${NODE_LTS_MAJOR:-24}"
PREFIX="$TEST_DATA/node-lts"
PACKAGE="node-$(node -p 'process.platform')-$(node -p 'process.arch')"
NODE="$PREFIX/node_modules/$PACKAGE/bin/node"

if [ ! -x "$NODE" ] || [ "$("$NODE" -p 'process.versions.node.split(".")[0]')" != "$LTS_MAJOR" ]; then
  echo "== fetching Node $LTS_MAJOR ($PACKAGE) from the npm registry"
  mkdir -p "$PREFIX"
  [ -f "$PREFIX/package.json" ] || echo '{"private":true}' > "$PREFIX/package.json"
  npm install --prefix "$PREFIX" --no-save --no-package-lock --no-audit --no-fund --ignore-scripts "$PACKAGE@$LTS_MAJOR" >/dev/null
fi
echo "== Node $("$NODE" --version): type check"
"$NODE" node_modules/typescript/bin/tsc --noEmit -p .
echo "== Node $("$NODE" --version): unit tests"
"$NODE" --import tsx --test --test-concurrency=2 $(find src -name '*.test.ts' | sort)
echo "== Node $("$NODE" --version): smoke test of the service"
TEST_DATA="$TEST_DATA" "$NODE" --import tsx scripts/smoke.ts
