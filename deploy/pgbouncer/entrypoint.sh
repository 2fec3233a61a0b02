#!/bin/sh
# Writes PgBouncer's configuration from the environment and the database password's file, then
# runs it in transaction pooling, as docs/operate.md#behind-pgbouncer describes for Till.
set -eu
dir=/tmp/pgbouncer
mkdir -p "$dir"
password=$(cat "$POSTGRES_PASSWORD_FILE")
umask 077
printf '"%s" "%s"\n' "$POSTGRES_USER" "$password" >"$dir/userlist.txt"
cat >"$dir/pgbouncer.ini" <<INI
[databases]
$POSTGRES_DB = host=$PGBOUNCER_SERVER_HOST port=$PGBOUNCER_SERVER_PORT dbname=$POSTGRES_DB

[pgbouncer]
pool_mode = transaction
listen_addr = ${PGBOUNCER_LISTEN_ADDR:-0.0.0.0}
listen_port = ${PGBOUNCER_PORT:-6432}
unix_socket_dir =
auth_type = scram-sha-256
auth_file = $dir/userlist.txt
max_client_conn = ${PGBOUNCER_MAX_CLIENT_CONN:-500}
default_pool_size = ${PGBOUNCER_POOL_SIZE:-20}
server_idle_timeout = 30
INI
exec pgbouncer "$dir/pgbouncer.ini"
