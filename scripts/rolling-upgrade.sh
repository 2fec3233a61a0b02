#!/usr/bin/env bash
# The rolling-upgrade (version skew) stage (docs/operate.md, "Upgrades"): the previous release (the
# newest first-parent commit with fewer migrations, see below) is exported and built
# in a cache outside the clone (TILL_CACHE, default ~/.cache/till; rebuilt when missing), then
# test/upgrade/stage.ts runs two of its instances on PostgreSQL 15 under load, starts the new code
# (which applies the new migrations while the old instances serve) and replaces them one at a time.
# Run by scripts/test.sh with CI=true (that stage alone: TEST_UPGRADE=1). `rolling-upgrade.sh [DIR]`.
set -euo pipefail
cd "$(dirname "$0")/.."
DIR="$(realpath -m "${1:-${TEST_DATA:-$PWD/.test-data}/upgrade}")"
CACHE="${TILL_CACHE:-$HOME/.cache/till}/releases"

# The previous release is the newest first-parent commit whose migrations (the journal's tags and
# times) are a strict prefix of this one's: a database it made is one this code migrates forward.
# (Merges that each brought a migration interleave numbers, so "the commit before the last one that
# added a migration" can name a schema that is no prefix of this one.)
previous=""
for c in $(git rev-list --first-parent HEAD~1); do
  if git show "$c:src/store/migrations/meta/_journal.json" 2>/dev/null | node -e '
    const fs = require("node:fs")
    const key = (j) => JSON.parse(j).entries.map((e) => `${e.tag}@${e.when}`)
    const then = key(fs.readFileSync(0, "utf8")), now = key(fs.readFileSync(process.argv[1], "utf8"))
    process.exit(then.length < now.length && then.every((k, i) => k === now[i]) ? 0 : 1)' src/store/migrations/meta/_journal.json; then
    previous="$c"
    break
  fi
done
[ -n "$previous" ] || { echo "no earlier release whose migrations this one continues" >&2; exit 1; }
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
