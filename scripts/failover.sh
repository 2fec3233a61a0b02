#!/usr/bin/env bash
# The failover stage (docs/operate.md, "High availability"): installs what it needs when missing
# (PostgreSQL 15 through scripts/pg15.sh's way, etcd and HAProxy from Debian's packages, Patroni from
# PyPI in a virtual environment), then runs test/failover/stage.ts: a three-node Patroni cluster with
# synchronous_mode on, one etcd, HAProxy, two Till processes, and four faults under load.
# Run by scripts/test.sh with CI=true (that stage alone: TEST_FAILOVER=1). `failover.sh [DIR]` runs
# it; `failover.sh install [DIR]` only installs (npm run bench -- failover).
set -euo pipefail
cd "$(dirname "$0")/.."
INSTALL_ONLY=0
if [ "${1:-}" = install ]; then INSTALL_ONLY=1; shift; fi
DIR="$(realpath -m "${1:-${TEST_DATA:-$PWD/.test-data}/failover}")"
# Patroni with patroni/patroni pull 2689 (3.0.3 and later; Debian 12's 3.0.2 lets a frozen old
# leader overwrite the new leader's key with etcd3). Pinned, so every run tests the same.
PATRONI_VERSION=4.1.5

missing=()
[ -x /usr/lib/postgresql/15/bin/postgres ] || missing+=(postgresql-15)
command -v etcd >/dev/null || missing+=(etcd-server)
command -v haproxy >/dev/null || missing+=(haproxy)
python3 -c 'import ensurepip, venv' 2>/dev/null || missing+=(python3-venv)
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing ${missing[*]} from Debian's packages" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2 ||
    { apt-get update -qq >&2 && apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2; }
fi
VENV="$DIR/venv"
if [ "$("$VENV/bin/patroni" --version 2>/dev/null)" != "patroni $PATRONI_VERSION" ]; then
  echo "installing Patroni $PATRONI_VERSION from PyPI into $VENV" >&2
  rm -rf "$VENV"
  mkdir -p "$DIR"
  /usr/bin/python3 -m venv "$VENV"
  "$VENV/bin/pip" install -q --disable-pip-version-check "patroni[etcd3]==$PATRONI_VERSION" 'psycopg2-binary>=2.9,<3' >&2
fi
[ "$INSTALL_ONLY" = 1 ] && exit 0

# Whatever a killed run left behind, by the process ids it recorded.
stop_left() {
  [ -f "$DIR/cluster/pids" ] || return 0
  while read -r pid _; do kill -KILL "$pid" 2>/dev/null || true; done < "$DIR/cluster/pids"
  for pm in "$DIR"/cluster/pg*/data/postmaster.pid; do
    [ -f "$pm" ] && kill -QUIT "$(head -1 "$pm")" 2>/dev/null || true
  done
  return 0
}
stop_left
trap stop_left EXIT

FAILOVER_DIR="$DIR" PATRONI_BIN="$VENV/bin/patroni" \
  npx tsx --test --test-timeout=600000 test/failover/stage.ts
