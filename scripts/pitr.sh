#!/usr/bin/env bash
# The point-in-time recovery drill (docs/operate.md, "Backups and point-in-time recovery"): installs
# PostgreSQL 15 and pgBackRest from Debian's packages when missing, then runs test/pitr/drill.ts
# (archiving into an encrypted repository, a full backup under load, a restore to a moment T on a
# fresh data directory, judged through Till's API; prints RTO and RPO).
# Run by scripts/test.sh with CI=true (that stage alone: TEST_PITR=1). `pitr.sh [DIR]`.
set -euo pipefail
cd "$(dirname "$0")/.."
DIR="$(realpath -m "${1:-${TEST_DATA:-$PWD/.test-data}/pitr}")"

missing=()
[ -x /usr/lib/postgresql/15/bin/postgres ] || missing+=(postgresql-15)
command -v pgbackrest >/dev/null || missing+=(pgbackrest)
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing ${missing[*]} from Debian's packages" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2 ||
    { apt-get update -qq >&2 && apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2; }
fi
if [ "$(id -u)" = 0 ] && ! id postgres >/dev/null 2>&1; then
  useradd --system --user-group --no-create-home postgres
fi
# The postgres user must reach DIR through every parent.
mkdir -p "$(dirname "$DIR")"
PITR_DIR="$DIR" npx tsx --test --test-timeout=900000 test/pitr/drill.ts
