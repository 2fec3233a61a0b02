#!/usr/bin/env bash
# Runs every test: type check, unit tests, and the HTTP tests against a private embedded PostgreSQL,
# then the Go client's (scripts/go-client.sh, on the same database).
# With CI=true the storage, API, webhook and relay tests run again on Debian's PostgreSQL 15 behind
# Debian's PgBouncer in transaction-pooling mode (locally: TEST_PG15=1; that stage alone: TEST_PGBOUNCER=1)
# and the API is fuzzed from its OpenAPI document by scripts/fuzz.sh (locally: TEST_FUZZ=1); each
# package is built for its registry, installed into an empty project and its README's example run
# against a real Till by scripts/packages.ts (locally: TEST_PACKAGES=1); the type
# check, unit tests and a smoke test also run on the newest LTS of Node by scripts/node-lts.sh
# (locally: TEST_NODE_LTS=1), and Till is taken through PostgreSQL failovers on a Patroni cluster by
# scripts/failover.sh (that stage alone: TEST_FAILOVER=1), restored to a point in time with pgBackRest
# by scripts/pitr.sh (that stage alone: TEST_PITR=1); scripts/rolling-upgrade.sh rolls instances of the
# previous release onto this one under load (that stage alone: TEST_UPGRADE=1), and the container image
# and compose file are built and run by scripts/containers.sh (locally: TEST_CONTAINERS=1).
set -euo pipefail
cd "$(dirname "$0")/.."

TEST_DATA="${TEST_DATA:-$PWD/.test-data}"
mkdir -p "$TEST_DATA"

cleanup() {
  npx tsx scripts/test-db.ts stop "$TEST_DATA/embedded" >/dev/null 2>&1 || true
  [ -n "${PGBOUNCER_DIR:-}" ] && bash scripts/pgbouncer.sh stop "$PGBOUNCER_DIR" >/dev/null 2>&1 || true
  [ -n "${PG15_DIR:-}" ] && bash scripts/pg15.sh stop "$PG15_DIR" >/dev/null 2>&1 || true
}
trap cleanup EXIT

# Till's pool goes through PgBouncer (TEST_DATABASE_URL); databases are made, and LISTEN and the
# migration lock go, straight to PostgreSQL (TEST_DATABASE_DIRECT_URL, as DATABASE_DIRECT_URL).
# test/store/pgbouncer.test.ts checks on PgBouncer's admin console that it is in the path.
pg15_stage() {
  echo "== storage, API, webhook and relay tests on PostgreSQL 15 through PgBouncer (transaction pooling)"
  PG15_DIR="$TEST_DATA/pg15"
  PGBOUNCER_DIR="$TEST_DATA/pgbouncer"
  export TEST_DATABASE_DIRECT_URL="$(bash scripts/pg15.sh start "$PG15_DIR")"
  export TEST_DATABASE_URL="$(bash scripts/pgbouncer.sh start "$PGBOUNCER_DIR" "$TEST_DATABASE_DIRECT_URL")"
  export TEST_PGBOUNCER_ADMIN_URL="$(bash scripts/pgbouncer.sh admin-url "$PGBOUNCER_DIR")"
  npx tsx scripts/test-db.ts template "$TEST_DATABASE_DIRECT_URL"
  npx tsx --test --test-concurrency=2 --test-timeout=120000 $( (find test/api test/store test/webhooks -name '*.test.ts' ! -name crash.test.ts;
    printf '%s\n' test/pages/relay.test.ts test/fault/relay-two-instances.test.ts test/services/session-signals.test.ts) | sort)
}
if [ "${TEST_PGBOUNCER:-}" = "1" ]; then
  pg15_stage
  exit 0
fi
if [ "${TEST_PITR:-}" = "1" ]; then
  bash scripts/pitr.sh "$TEST_DATA/pitr"
  exit 0
fi
if [ "${TEST_FAILOVER:-}" = "1" ]; then
  bash scripts/failover.sh "$TEST_DATA/failover"
  exit 0
fi
if [ "${TEST_UPGRADE:-}" = "1" ]; then
  bash scripts/rolling-upgrade.sh "$TEST_DATA/upgrade"
  exit 0
fi

echo "== type check"
npx tsc --noEmit -p .

# What \`till\` and \`till start\` run (bin/till.mjs would build it on first use too).
echo "== build dist/ (scripts/build.mjs)"
node scripts/build.mjs

if [ "${CI:-}" = "true" ] || [ "${TEST_NODE_LTS:-}" = "1" ]; then
  TEST_DATA="$TEST_DATA" bash scripts/node-lts.sh
fi

echo "== browser for the browser tests"
bash scripts/chromium.sh

echo "== starting the embedded PostgreSQL for tests"
export TEST_DATABASE_URL="$(npx tsx scripts/test-db.ts embedded "$TEST_DATA/embedded")"

# Before the Node tests, so the output still ends with their summary (TEST_PYTHON=0 skips it).
if [ "${TEST_PYTHON:-1}" != "0" ]; then
  echo "== the Python client on Python 3.9 and 3.13 (scripts/python-client.sh)"
  bash scripts/python-client.sh
fi

FILES=$(find src test clients/js/test -name '*.test.ts' | sort)
echo "== tests on the embedded PostgreSQL"
npx tsx --test --test-concurrency=2 --test-timeout=120000 $FILES

echo "== the WeChat Pay fake and adapter against the official Go SDK (scripts/sdk-checks.sh)"
bash scripts/sdk-checks.sh

echo "== Go client (scripts/go-client.sh)"
bash scripts/go-client.sh

# Each package as its registry gets it, installed into an empty project, its README's example run.
if [ "${CI:-}" = "true" ] || [ "${TEST_PACKAGES:-}" = "1" ]; then
  echo "== the packages, built, installed and run as a merchant would (scripts/packages.ts)"
  npx tsx scripts/packages.ts
fi

# Medusa and its test runner are a large install of their own (clients/medusa/node_modules).
if [ "${CI:-}" = "true" ] || [ "${TEST_MEDUSA:-}" = "1" ]; then
  echo "== the Medusa payment provider under Medusa's integration runner (scripts/medusa.sh)"
  bash scripts/medusa.sh
fi

# Before the PostgreSQL 15 run, so the output still ends with the test runner's summary.
if [ "${CI:-}" = "true" ] || [ "${TEST_FUZZ:-}" = "1" ]; then
  echo "== fuzzing the API from its OpenAPI document (scripts/fuzz.sh)"
  bash scripts/fuzz.sh
fi

# The image and compose pair on Debian's Docker engine, alert rules through promtool (scripts/containers.sh).
if [ "${CI:-}" = "true" ] || [ "${TEST_CONTAINERS:-}" = "1" ]; then
  echo "== the container image and compose file (scripts/containers.sh)"
  bash scripts/containers.sh
fi

# Before the PostgreSQL 15 run too; it ends with its own test runner's summary.
if [ "${CI:-}" = "true" ]; then
  echo "== Till through PostgreSQL failovers: Patroni, etcd, HAProxy (scripts/failover.sh)"
  bash scripts/failover.sh "$TEST_DATA/failover"
fi

# Before the PostgreSQL 15 run too: a restore to a moment T with pgBackRest, and a rolling upgrade from
# the previous release, both judged through the API.
if [ "${CI:-}" = "true" ]; then
  echo "== point-in-time recovery drill: pgBackRest, PostgreSQL 15 (scripts/pitr.sh)"
  bash scripts/pitr.sh "$TEST_DATA/pitr"
  echo "== rolling upgrade from the previous release, one instance at a time (scripts/rolling-upgrade.sh)"
  bash scripts/rolling-upgrade.sh "$TEST_DATA/upgrade"
fi

if [ "${CI:-}" = "true" ] || [ "${TEST_PG15:-}" = "1" ]; then
  pg15_stage
fi
