#!/usr/bin/env bash
# PgBouncer from Debian's packages, installed when missing, in transaction-pooling mode in front of
# the PostgreSQL whose URL is given, on a Unix socket in DIR (docs/operate.md, "Behind PgBouncer").
# `start DIR POSTGRES_URL` prints the pooled URL; `admin-url DIR` the admin console's; `stop DIR` stops it.
# Debian 12 ships 1.18, before max_prepared_statements (1.21): Till sends statements unnamed behind it.
set -euo pipefail
cmd="$1"; dir="$(realpath -m "$2")"
PORT=6432 # only names the socket file: no TCP listener
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }

if [ "$cmd" = stop ]; then
  if [ -f "$dir/pgbouncer.pid" ]; then
    pid="$(cat "$dir/pgbouncer.pid")"
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    rm -f "$dir/pgbouncer.pid"
  fi
  exit 0
fi
if [ "$cmd" = admin-url ]; then
  printf 'postgresql://postgres@localhost/pgbouncer?host=%s&port=%s' "$dir" "$PORT"
  exit 0
fi

backend="$3"
if [ ! -x /usr/sbin/pgbouncer ]; then
  echo "installing pgbouncer from Debian's packages" >&2
  export DEBIAN_FRONTEND=noninteractive
  # The package lists are usually fresh from scripts/pg15.sh's install: update only if they fail us.
  apt-get install -y -qq --no-install-recommends pgbouncer >&2 ||
    { apt-get update -qq >&2 && apt-get install -y -qq --no-install-recommends pgbouncer >&2; }
fi
if [ "$(id -u)" = 0 ] && ! id postgres >/dev/null 2>&1; then
  useradd --system --user-group --no-create-home postgres
fi
mkdir -p "$dir"
[ "$(id -u)" = 0 ] && chown postgres "$dir" && chmod 755 "$dir"
bash "$0" stop "$dir"

# The backend as libpq parameters: host (a socket directory or a name), port, user.
read -r host port user < <(node -e '
  const u = new URL(process.argv[1])
  console.log(u.searchParams.get("host") || u.hostname, u.searchParams.get("port") || u.port || 5432, decodeURIComponent(u.username) || "postgres")
' "$backend")

# Every database by name (`*`): the tests create theirs while PgBouncer runs. Trust, as the
# PostgreSQL behind it (loopback and Unix sockets only); the user must still be in auth_file.
as_pg tee "$dir/pgbouncer.ini" >/dev/null <<EOF
[databases]
* = host=$host port=$port user=$user

[pgbouncer]
pool_mode = transaction
listen_addr =
listen_port = $PORT
unix_socket_dir = $dir
auth_type = trust
auth_file = $dir/userlist.txt
admin_users = $user
max_client_conn = 500
default_pool_size = 20
server_idle_timeout = 30
logfile = $dir/pgbouncer.log
pidfile = $dir/pgbouncer.pid
EOF
printf '"%s" ""\n' "$user" | as_pg tee "$dir/userlist.txt" >/dev/null
as_pg /usr/sbin/pgbouncer -d -q "$dir/pgbouncer.ini"
for _ in $(seq 50); do [ -S "$dir/.s.PGSQL.$PORT" ] && break; sleep 0.1; done
[ -S "$dir/.s.PGSQL.$PORT" ] || { echo "pgbouncer did not start: see $dir/pgbouncer.log" >&2; exit 1; }
db="$(node -e 'console.log(decodeURIComponent(new URL(process.argv[1]).pathname.slice(1)) || "postgres")' "$backend")"
printf 'postgresql://%s@localhost/%s?host=%s&port=%s' "$user" "$db" "$dir" "$PORT"
