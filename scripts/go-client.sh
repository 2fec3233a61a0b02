#!/usr/bin/env bash
# Checks and tests the Go client (clients/go): gofmt and go vet clean, then `go test ./...` with the
# Go on this machine and again with Go 1.21, the oldest the library supports (GOTOOLCHAIN fetches
# it once through the module proxy and keeps it in the module cache). The integration tests start
# a real Till on TEST_DATABASE_URL; without one, this starts the embedded PostgreSQL for tests.
set -euo pipefail
cd "$(dirname "$0")/.."

GO_MIN_TOOLCHAIN="${GO_MIN_TOOLCHAIN:-go1.21.13}"
TEST_DATA="${TEST_DATA:-$PWD/.test-data}"

if ! command -v go >/dev/null; then
  echo "go-client.sh: no Go toolchain on PATH" >&2
  exit 1
fi

if [ -z "${TEST_DATABASE_URL:-}" ]; then
  mkdir -p "$TEST_DATA"
  trap 'npx tsx scripts/test-db.ts stop "$TEST_DATA/embedded" >/dev/null 2>&1 || true' EXIT
  TEST_DATABASE_URL="$(npx tsx scripts/test-db.ts embedded "$TEST_DATA/embedded")"
  export TEST_DATABASE_URL
fi

cd clients/go
unformatted="$(gofmt -l .)"
if [ -n "$unformatted" ]; then
  echo "gofmt: these files need formatting (gofmt -w clients/go):" >&2
  echo "$unformatted" >&2
  exit 1
fi

for toolchain in local "$GO_MIN_TOOLCHAIN"; do
  echo "== Go client with $(GOTOOLCHAIN=$toolchain go version)"
  GOTOOLCHAIN=$toolchain go vet ./...
  # -count=1: the integration tests talk to a fresh Till every time, never a cached result.
  GOTOOLCHAIN=$toolchain go test -count=1 ./...
done
