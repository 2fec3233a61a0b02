#!/usr/bin/env bash
# The WeChat Pay fake and Till's WeChat adapter against the official Go SDK
# (github.com/wechatpay-apiv3/wechatpay-go, pinned in test/sdk/wechatpay-go/go.mod): starts
# `till fake wechat` on a free loopback port, lets Till's adapter send every kind of request to it
# (test/sdk/till-wechat-requests.ts), then runs the Go tests against the same fake. The Creem SDK
# check is an ordinary test file (test/providers/creem-sdk.test.ts).
# Needs the Go toolchain; the module proxy serves the SDK (a warm module cache makes this ~30 s).
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v go >/dev/null 2>&1; then
  if [ "${CI:-}" = "true" ]; then echo "sdk-checks: the Go toolchain is required in CI" >&2; exit 1; fi
  echo "sdk-checks: no Go toolchain here; skipping the wechatpay-go checks"
  exit 0
fi

WORK="$(mktemp -d)"
FAKE_PID=""
cleanup() {
  [ -n "$FAKE_PID" ] && kill "$FAKE_PID" 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT

node bin/till.mjs fake wechat --port 0 --json --state "$WORK/state.json" >"$WORK/fake.json" 2>"$WORK/fake.err" &
FAKE_PID=$!
for _ in $(seq 1 100); do
  [ -s "$WORK/fake.json" ] && break
  kill -0 "$FAKE_PID" 2>/dev/null || { cat "$WORK/fake.err" >&2; exit 1; }
  sleep 0.1
done
[ -s "$WORK/fake.json" ] || { echo "sdk-checks: till fake wechat did not start" >&2; cat "$WORK/fake.err" >&2; exit 1; }

npx tsx test/sdk/till-wechat-requests.ts "$WORK/fake.json"
(cd test/sdk/wechatpay-go && FAKE_JSON="$WORK/fake.json" go test -count=1 ./...)
