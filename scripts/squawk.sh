#!/usr/bin/env bash
# squawk, the PostgreSQL migration linter (test/store/migration-lint.test.ts), installed from the npm
# registry into a cache outside the clone and reused; prints the path of its binary. Not a dependency
# of the project: squawk-cli lists a binary package per platform and the registry may not serve every
# one, which npm ci refuses in a lock file.
set -euo pipefail
VERSION=2.66.0
DIR="${TILL_CACHE:-$HOME/.cache/till}/squawk-$VERSION"
BIN="$DIR/node_modules/.bin/squawk"
if [ ! -x "$BIN" ]; then
  mkdir -p "$DIR"
  npm install --silent --no-save --no-audit --no-fund --prefix "$DIR" "squawk-cli@$VERSION" >&2
fi
"$BIN" --version >/dev/null
echo "$BIN"
