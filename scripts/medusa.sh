#!/usr/bin/env bash
# Tests the Medusa payment provider (clients/medusa, @till-payments/medusa) with Medusa's own tools: its
# dependencies (Medusa 2.x, Jest, SWC) from the npm registry into clients/medusa/node_modules, never
# the root package's; its build (what npm would publish) and type check; then its Jest tests: the
# provider's methods against a real Till in test mode, and Medusa's integration runner
# (@medusajs/test-utils) taking a store's carts, orders and refunds through that Till.
#
# `npm ci` runs when clients/medusa/package-lock.json differs from the one last installed. Its cache
# is $TEST_DATA/npm-cache, inside the checkout: a fresh CI checkout downloads everything (about 1,300
# packages). Medusa's databases go to the test PostgreSQL of TEST_DATABASE_URL (npm test exports it);
# without one, this starts the embedded PostgreSQL of scripts/test-db.ts itself, and stops it at the end.
#   bash scripts/medusa.sh                     # everything
#   bash scripts/medusa.sh -t 'JPY'            # extra arguments go to Jest
set -euo pipefail
cd "$(dirname "$0")/.."

ROOT="$PWD"
TEST_DATA="${TEST_DATA:-$ROOT/.test-data}"
PKG="$ROOT/clients/medusa"
mkdir -p "$TEST_DATA"

STARTED_DB=""
cleanup() {
  if [ -n "$STARTED_DB" ]; then (cd "$ROOT" && npx tsx scripts/test-db.ts stop "$TEST_DATA/embedded") >/dev/null 2>&1 || true; fi
}
trap cleanup EXIT
if [ -z "${TEST_DATABASE_URL:-}" ]; then
  echo "== starting the embedded PostgreSQL for the Medusa tests"
  TEST_DATABASE_URL="$(npx tsx scripts/test-db.ts embedded "$TEST_DATA/embedded")"
  export TEST_DATABASE_URL
  STARTED_DB=1
fi

HASH="$(sha256sum "$PKG/package-lock.json" | cut -c1-16)"
if [ "$(cat "$PKG/node_modules/.lock-hash" 2>/dev/null)" != "$HASH" ]; then
  echo "== npm ci in clients/medusa (Medusa, its test runner, Jest)"
  started=$SECONDS
  (cd "$PKG" && npm ci --no-audit --no-fund --loglevel=error --cache "$TEST_DATA/npm-cache")
  echo "$HASH" > "$PKG/node_modules/.lock-hash"
  echo "== npm ci took $((SECONDS - started)) s"
fi

cd "$PKG"
echo "== build of @till-payments/medusa, then its type check and declarations beside Jest"
node build.mjs --js-only
# The type checker needs the CPU while the tests mostly wait on Medusa, Till and PostgreSQL.
(npx tsc --noEmit -p . && npx tsc -p tsconfig.build.json) > "$TEST_DATA/medusa-typecheck.log" 2>&1 &
typecheck=$!
echo "== Jest: the provider against a real Till, and Medusa's integration runner"
# Medusa's test runner imports modules dynamically, which Jest allows with this flag (as Medusa's
# project template runs it); --runInBand: one Medusa, one Till, one process.
status=0
NODE_OPTIONS=--experimental-vm-modules npx jest --ci --runInBand "$@" || status=$?
echo "== type check and declarations of @till-payments/medusa"
wait "$typecheck" || status=$?
cat "$TEST_DATA/medusa-typecheck.log"
exit "$status"
