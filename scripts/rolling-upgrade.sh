#!/usr/bin/env bash
# The rolling-upgrade (version skew) stage (docs/operate.md, "Upgrades"): the previous release (the
# commit before the last one that added migrations, on the first-parent line) is exported and built
# in a cache outside the clone (TILL_CACHE, default ~/.cache/till; rebuilt when missing), then
# test/upgrade/stage.ts runs two of its instances on PostgreSQL 15 under load, starts the new code
# (which applies the new migrations while the old instances serve) and replaces them one at a time.
# Run by scripts/test.sh with CI=true (that stage alone: TEST_UPGRADE=1). `rolling-upgrade.sh [DIR]`.
set -euo pipefail
cd "$(dirname "$0")/.."
DIR="$(realpath -m "${1:-${TEST_DATA:-$PWD/.test-data}/upgrade}")"
CACHE="${TILL_CACHE:-$HOME/.cache/till}/releases"

# A migration file added (not renamed) names the release that brought it.
added="$(git log -1 --first-parent --diff-filter=A --format=%H -- 'src/store/migrations/*.sql')"
previous="$(git rev-parse "$added^1")"
OLD="$CACHE/$previous"
if [ ! -f "$OLD/.built" ]; then
  echo "building the previous release ${previous:0:12} into $OLD" >&2
  rm -rf "$OLD" && mkdir -p "$OLD"
  git archive "$previous" | tar -x -C "$OLD"
  (cd "$OLD" && npm ci --no-audit --no-fund --loglevel=error >&2 && node scripts/build.mjs >&2)
  touch "$OLD/.built"
fi

PG_DIR="$DIR/pg15"
trap 'bash scripts/pg15.sh stop "$PG_DIR" >/dev/null 2>&1 || true' EXIT
PG_URL="$(bash scripts/pg15.sh start "$PG_DIR")"
UPGRADE_PG_URL="$PG_URL" UPGRADE_OLD_ROOT="$OLD" UPGRADE_OLD_COMMIT="$previous" \
  npx tsx --test --test-timeout=600000 test/upgrade/stage.ts
