#!/usr/bin/env bash
# Property-based fuzzing of the merchant API from its own OpenAPI document (issue #6): schemathesis
# generates requests for every documented operation and fails on any 5xx, any status the document
# does not list, and any answer its schema does not describe.
#
# Till runs as a real process on its own embedded PostgreSQL in a temporary DATA_DIR, with jobs off
# (no webhook is ever sent to a generated URL) and a rate limit out of the way. scripts/fuzz.ts
# seeds objects in every state and offers their ids to the generator, then counts the requests each
# operation got from Till's own /metrics.
#
#   bash scripts/fuzz.sh                      # the CI run (scripts/test.sh runs it on CI or TEST_FUZZ=1)
#   FUZZ_EXAMPLES=5000 bash scripts/fuzz.sh   # a larger local run
# Knobs: FUZZ_EXAMPLES (per operation), FUZZ_SEED, FUZZ_WORKERS, FUZZ_MIN_REQUESTS (per operation).
set -euo pipefail
cd "$(dirname "$0")/.."

SCHEMATHESIS_VERSION=4.32.5
EXAMPLES="${FUZZ_EXAMPLES:-1000}"
SEED="${FUZZ_SEED:-20260601}"
WORKERS="${FUZZ_WORKERS:-1}"
MIN_REQUESTS="${FUZZ_MIN_REQUESTS:-$EXAMPLES}"
VENV="$PWD/.venv/fuzz"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/till-fuzz.XXXXXX")"
# PostgreSQL runs as its own user (Till drops root for it) and must reach DATA_DIR below.
chmod 755 "$WORK"

if [ "$("$VENV/bin/schemathesis" --version 2>/dev/null)" != "schemathesis, version $SCHEMATHESIS_VERSION" ]; then
  echo "== installing schemathesis $SCHEMATHESIS_VERSION into .venv/fuzz"
  rm -rf "$VENV"
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install --quiet --disable-pip-version-check "schemathesis==$SCHEMATHESIS_VERSION"
fi

PORT="$(node -e "const s = require('net').createServer().listen(0, '127.0.0.1', () => { console.log(s.address().port); s.close() })")"
BASE="http://127.0.0.1:$PORT"
ADMIN_TOKEN="$(node -e "console.log(require('crypto').randomBytes(24).toString('hex'))")"

TILL_PID=
cleanup() {
  status=$?
  if [ -n "$TILL_PID" ]; then
    kill -TERM "$TILL_PID" 2>/dev/null || true
    wait "$TILL_PID" 2>/dev/null || true
  fi
  npx tsx scripts/test-db.ts stop "$WORK/data" >/dev/null 2>&1 || true
  if [ "$status" -ne 0 ] && [ -s "$WORK/till.log" ]; then
    echo "== Till's errors during the run:"
    grep -a '"level":50' "$WORK/till.log" | tail -n 20 || true
  fi
  rm -rf "$WORK"
}
trap cleanup EXIT

echo "== starting Till on $BASE (embedded PostgreSQL in $WORK/data)"
env -u DATABASE_URL -u SECRETS_KEY -u BASE_URL -u METRICS_TOKEN \
  DATA_DIR="$WORK/data" PORT="$PORT" HOST=127.0.0.1 ADMIN_TOKEN="$ADMIN_TOKEN" TILL_JOBS=0 \
  RATE_LIMIT_PER_SECOND=1000000000 LOG_LEVEL=warn \
  node --import tsx src/main.ts >"$WORK/till.log" 2>&1 &
TILL_PID=$!
for _ in $(seq 600); do
  curl -sf "$BASE/readyz" >/dev/null 2>&1 && break
  kill -0 "$TILL_PID" 2>/dev/null || { cat "$WORK/till.log"; exit 1; }
  sleep 0.1
done
curl -sf "$BASE/readyz" >/dev/null

KEY="$(npx tsx scripts/fuzz.ts seed "$BASE" "$ADMIN_TOKEN" "$WORK")"

# Two processes, one per half of the API: generating, not Till, is the slow part, and one
# schemathesis process generates on one core. One worker each: with several threads, Python 3.11's
# ast module (Hypothesis describes its filters with it) fails at random with "AST constructor
# recursion depth mismatch", which is an error of the run, not of Till.
SHARDS=('^/api/v1/(checkout|sessions|refunds|test_helpers)' '^/api/v1/(webhook_endpoints|events|records|payment_links)')
echo "== schemathesis: $EXAMPLES examples per operation, seed $SEED, ${#SHARDS[@]} processes of $WORKERS workers"
START=$SECONDS
PIDS=()
for i in "${!SHARDS[@]}"; do
  (cd "$WORK" && exec "$VENV/bin/schemathesis" --config-file "$WORK/schemathesis.toml" run "$BASE/api/v1/openapi.json" \
    --include-path-regex "${SHARDS[$i]}" \
    --header "Authorization: Bearer $KEY" \
    --checks not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance \
    --max-examples "$EXAMPLES" --seed "$SEED" --workers "$WORKERS" \
    --generation-database none --suppress-health-check all --no-color \
    --report ndjson --report-ndjson-path "$WORK/events-$i.ndjson") >"$WORK/schemathesis-$i.log" 2>&1 &
  PIDS+=($!)
done
FAILED=0
for i in "${!PIDS[@]}"; do
  wait "${PIDS[$i]}" || FAILED=1
  echo "== schemathesis, ${SHARDS[$i]}"
  cat "$WORK/schemathesis-$i.log"
done
echo "== fuzzing took $((SECONDS - START)) s"
[ "$FAILED" = 0 ] || exit 1

npx tsx scripts/fuzz.ts counts "$BASE" "$MIN_REQUESTS" "$WORK"/events-*.ndjson
