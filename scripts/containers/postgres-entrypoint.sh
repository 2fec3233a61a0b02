#!/bin/sh
# CI's stand-in for the official postgres image's entrypoint (scripts/containers.sh): the part
# deploy/compose.yaml uses. On an empty PGDATA: a cluster whose POSTGRES_USER has the password in
# POSTGRES_PASSWORD_FILE, POSTGRES_DB created, password logins from anywhere; then runs "$@".
set -eu
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  pw=$(mktemp)
  cat "$POSTGRES_PASSWORD_FILE" >"$pw"
  initdb -D "$PGDATA" -U "$POSTGRES_USER" --pwfile="$pw" --auth-local=trust --auth-host=scram-sha-256 >/dev/null
  rm -f "$pw"
  echo "host all all all scram-sha-256" >>"$PGDATA/pg_hba.conf"
  echo "CREATE DATABASE \"$POSTGRES_DB\"" | postgres --single -D "$PGDATA" -j postgres >/dev/null
fi
exec "$@"
