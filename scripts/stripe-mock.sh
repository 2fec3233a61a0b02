#!/usr/bin/env bash
# Stripe's official mock server (github.com/stripe/stripe-mock, an OpenAPI-driven validator of
# requests), built from the Go module proxy once and cached outside the clone; prints the binary's
# path. test/providers/stripe-mock.test.ts runs it to judge every request Till's Stripe adapter makes.
# STRIPE_MOCK_BIN names a binary to use instead. Needs the Go toolchain the first time (~1 min cold).
set -euo pipefail
VERSION=v0.203.0
if [ -n "${STRIPE_MOCK_BIN:-}" ]; then echo "$STRIPE_MOCK_BIN"; exit 0; fi
CACHE="${TILL_TOOL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/till}/stripe-mock-$VERSION"
if [ ! -x "$CACHE/stripe-mock" ]; then
  if ! command -v go >/dev/null 2>&1; then echo "stripe-mock: the Go toolchain is needed to build it" >&2; exit 1; fi
  mkdir -p "$CACHE"
  GOBIN="$CACHE" GOFLAGS=-mod=mod go install "github.com/stripe/stripe-mock@$VERSION" >&2
fi
echo "$CACHE/stripe-mock"
