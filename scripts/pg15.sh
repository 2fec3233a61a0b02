#!/usr/bin/env bash
# PostgreSQL 15 from Debian's packages, installed when missing, run on a Unix socket in DIR.
# `start DIR` prints a connection URL; `stop DIR` stops it.
set -euo pipefail
cmd="$1"; dir="$(realpath -m "$2")"
BIN=/usr/lib/postgresql/15/bin
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }

if [ "$cmd" = stop ]; then
  [ -f "$dir/data/postmaster.pid" ] && as_pg "$BIN/pg_ctl" stop -D "$dir/data" -m fast -w >/dev/null
  exit 0
fi

if [ ! -x "$BIN/postgres" ]; then
  echo "installing postgresql-15 from Debian's packages" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2 && apt-get install -y -qq --no-install-recommends postgresql-15 >&2
fi
if [ "$(id -u)" = 0 ] && ! id postgres >/dev/null 2>&1; then
  useradd --system --user-group --no-create-home postgres
fi
mkdir -p "$dir"
[ "$(id -u)" = 0 ] && chown postgres "$dir" && chmod 755 "$dir"
if [ ! -f "$dir/data/PG_VERSION" ]; then
  as_pg "$BIN/initdb" -D "$dir/data" -U postgres --auth=trust -E UTF8 --locale=C >/dev/null
fi
[ -f "$dir/data/postmaster.pid" ] && as_pg "$BIN/pg_ctl" stop -D "$dir/data" -m immediate -w >/dev/null 2>&1 || true
as_pg "$BIN/pg_ctl" start -D "$dir/data" -w -l "$dir/data/server.log" \
  -o "-c listen_addresses='' -k $dir -p 5433 -c max_connections=200" >/dev/null
printf 'postgresql://postgres@localhost/postgres?host=%s&port=5433' "$dir"
