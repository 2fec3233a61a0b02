#!/usr/bin/env bash
# The container stage (scripts/test.sh runs it with CI=true or TEST_CONTAINERS=1): deploy/Dockerfile
# built and deploy/compose.yaml run on a machine with no image registry, as docs/operate.md#containers
# says. What it needs comes from Debian: the Docker engine (docker.io, started here as root with no
# bridge and no iptables, so every container uses the host's network), base images made with
# debootstrap of Debian 13 (whose nodejs is 20.19) and compose v2 (Debian 13's docker-compose,
# unpacked from its package). Then: the alert rules and Prometheus' configuration checked by
# promtool, the image built on the local base, the pair up on PostgreSQL behind PgBouncer, a
# session created and paid through the mock on each instance, everything stopped and started again
# with its data kept, the monitoring profile's Prometheus (Debian's) scraping both instances, the
# container's user not root, the image's size reported.
#
# The engine's data root (base images, build layers) and compose's binary are cached outside the
# clone, in TILL_CI_CACHE (default /var/cache/till-ci, else ~/.cache/till-ci), and rebuilt when
# missing. The engine, its mounts and the stack are removed at the end, also on failure.
# Host ports used, on 127.0.0.1: TILL_CI_PORT (default 47310) and the next four.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
START=$(date +%s)

if [ -z "${TILL_CI_CACHE:-}" ]; then
  TILL_CI_CACHE=/var/cache/till-ci
  mkdir -p "$TILL_CI_CACHE" 2>/dev/null && [ -w "$TILL_CI_CACHE" ] || TILL_CI_CACHE="$HOME/.cache/till-ci"
fi
CACHE="$TILL_CI_CACHE/containers"
mkdir -p "$CACHE"
RUN_DIR=$(mktemp -d /tmp/till-containers.XXXXXX)
PORT0=${TILL_CI_PORT:-47310}
DOCKER=/usr/bin/docker
export DOCKER_HOST="unix://$RUN_DIR/docker.sock"
export DOCKER_CONFIG="$CACHE/docker-config"
COMPOSE=("$DOCKER" compose -p till-ci -f deploy/compose.yaml -f scripts/containers/compose.host.yaml)
export COMPOSE_PROGRESS=plain

step() { echo "-- $* ($(($(date +%s) - START)) s)" >&2; }

# --- what it needs, from Debian (docker.io's client, not another one on PATH, talks to its engine)
need=()
[ -x /usr/sbin/dockerd ] && [ -x "$DOCKER" ] || need+=(docker.io)
command -v debootstrap >/dev/null || need+=(debootstrap)
command -v promtool >/dev/null || need+=(prometheus)
if [ ${#need[@]} -gt 0 ]; then
  step "installing ${need[*]} with apt"
  apt-get update -qq
  # Debian's prometheus package would start its service where there is an init system.
  DEBIAN_FRONTEND=noninteractive RUNLEVEL=1 apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

step "promtool: alert rules and Prometheus configuration"
promtool check rules deploy/monitoring/alerts.yml
promtool check config --syntax-only deploy/monitoring/prometheus.yml

# --- the engine
cleanup() {
  local rc=$?
  set +e
  if [ -S "$RUN_DIR/docker.sock" ]; then
    [ $rc -ne 0 ] && "${COMPOSE[@]}" logs --no-color --tail 80 2>/dev/null | tail -200
    "${COMPOSE[@]}" --profile monitoring down -v --remove-orphans >/dev/null 2>&1
    "$DOCKER" image prune -f >/dev/null 2>&1
  fi
  if [ -f "$RUN_DIR/dockerd.pid" ]; then
    local pid
    pid=$(cat "$RUN_DIR/dockerd.pid")
    kill "$pid" 2>/dev/null
    for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  fi
  # dockerd 20.10 leaves its network namespace mounted under the exec root; overlay mounts may be left after a crash.
  grep -o " $RUN_DIR/[^ ]*\| $CACHE/data-root/[^ ]*" /proc/mounts | sort -r | while read -r m; do umount -l "$m"; done
  rm -rf "$RUN_DIR"
  exit $rc
}
trap cleanup EXIT

step "starting dockerd (data root $CACHE/data-root)"
/usr/sbin/dockerd --iptables=false --ip6tables=false --bridge=none \
  --data-root "$CACHE/data-root" --exec-root "$RUN_DIR/exec" \
  -H "$DOCKER_HOST" --pidfile "$RUN_DIR/dockerd.pid" >"$RUN_DIR/dockerd.log" 2>&1 &
for _ in $(seq 1 300); do "$DOCKER" version >/dev/null 2>&1 && break; sleep 0.1; done
"$DOCKER" version --format 'engine {{.Server.Version}}' || { cat "$RUN_DIR/dockerd.log"; exit 1; }

# --- base images, each tagged with a hash of how it is made, so a change rebuilds it
MIRROR=${DEBIAN_MIRROR:-$(awk '/^URIs:/ { print $2; exit }' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)}
MIRROR=${MIRROR:-http://deb.debian.org/debian}
if ! "$DOCKER" image inspect local/trixie >/dev/null 2>&1; then
  step "local/trixie: debootstrap of Debian 13 from $MIRROR"
  debootstrap --variant=minbase trixie "$RUN_DIR/rootfs" "$MIRROR" >"$RUN_DIR/debootstrap.log" 2>&1 || { tail -20 "$RUN_DIR/debootstrap.log"; exit 1; }
  tar -C "$RUN_DIR/rootfs" -c . | "$DOCKER" import -c 'ENV LANG=C.UTF-8' - local/trixie >/dev/null
  rm -rf "$RUN_DIR/rootfs"
fi

# base NAME DOCKERFILE [FILE...]: builds local/NAME:<hash> from a Dockerfile on stdin with FILEs beside it.
base() {
  local name=$1 dockerfile ctx tag
  shift
  dockerfile=$(cat)
  tag="local/$name:$( (echo "$dockerfile"; cat "$@" 2>/dev/null) | sha256sum | cut -c1-12)"
  if ! "$DOCKER" image inspect "$tag" >/dev/null 2>&1; then
    step "$tag"
    ctx="$RUN_DIR/ctx-$name"
    mkdir -p "$ctx"
    [ $# -gt 0 ] && cp "$@" "$ctx/"
    echo "$dockerfile" >"$ctx/Dockerfile"
    "$DOCKER" build -q --network host -t "$tag" "$ctx" >/dev/null
  fi
  echo "$tag"
}
# npm inside a build checks the registry's certificate against the image's CAs: the host's own
# extra CAs (a proxy's, where there is one) go in too.
mkdir -p "$RUN_DIR/cas"
cp /usr/local/share/ca-certificates/*.crt "$RUN_DIR/cas/" 2>/dev/null || true
APT='apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends'
NODE_BUILD=$(base node-build "$RUN_DIR"/cas/*.crt <<EOF
FROM local/trixie
RUN $APT nodejs npm ca-certificates && rm -rf /var/lib/apt/lists/*
COPY *.crt /usr/local/share/ca-certificates/
RUN update-ca-certificates
EOF
)
NODE=$(base node <<EOF
FROM local/trixie
RUN $APT nodejs ca-certificates && rm -rf /var/lib/apt/lists/*
EOF
)
POSTGRES=$(base postgres scripts/containers/postgres-entrypoint.sh <<EOF
FROM local/trixie
RUN $APT postgresql-17 && rm -rf /var/lib/apt/lists/* && mkdir -p /var/lib/postgresql/data /run/postgresql \
 && chown postgres:postgres /var/lib/postgresql/data /run/postgresql
COPY postgres-entrypoint.sh /usr/local/bin/
ENV PATH=/usr/lib/postgresql/17/bin:\$PATH PGDATA=/var/lib/postgresql/data
USER postgres
ENTRYPOINT ["sh", "/usr/local/bin/postgres-entrypoint.sh"]
CMD ["postgres"]
EOF
)

# The monitoring profile's Prometheus, from Debian's package (Grafana and Jaeger are not in Debian:
# docs/operate.md#containers). Its data directory belongs to its user, so a new volume does too.
PROMETHEUS=$(base prometheus <<EOF
FROM local/trixie
RUN $APT prometheus && rm -rf /var/lib/apt/lists/* && mkdir -p /prometheus && chown prometheus:prometheus /prometheus
USER prometheus
ENTRYPOINT ["/usr/bin/prometheus"]
EOF
)

# --- compose v2: Debian 13's docker-compose, unpacked from its package with a private apt directory
if ! "$DOCKER" compose version >/dev/null 2>&1; then
  step "compose v2 from Debian 13's docker-compose package"
  APTDIR="$RUN_DIR/apt"
  mkdir -p "$APTDIR/lists/partial" "$APTDIR/archives/partial" "$APTDIR/deb"
  echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $MIRROR trixie main" >"$APTDIR/sources.list"
  apt_opts=(-o "Dir::Etc::SourceList=$APTDIR/sources.list" -o Dir::Etc::SourceParts=/dev/null
    -o "Dir::State::Lists=$APTDIR/lists" -o "Dir::Cache::Archives=$APTDIR/archives" -o Dir::State::Status=/dev/null -o APT::Architecture=amd64)
  apt-get "${apt_opts[@]}" update -qq 2>&1 | grep -v unsandboxed || true
  (cd "$APTDIR/deb" && apt-get "${apt_opts[@]}" download docker-compose 2>&1 | grep -v unsandboxed || true)
  dpkg-deb -x "$APTDIR"/deb/docker-compose_*.deb "$APTDIR/x"
  mkdir -p "$DOCKER_CONFIG/cli-plugins"
  install -m 755 "$(find "$APTDIR/x" -path '*/cli-plugins/docker-compose' | head -1)" "$DOCKER_CONFIG/cli-plugins/docker-compose"
fi
"$DOCKER" compose version

# --- Till's image on the Debian bases, with the Dockerfile's base arguments
step "building deploy/Dockerfile on $NODE_BUILD and $NODE"
# The build stage is tagged too: untagged, the prune below would drop its layers (npm ci's among them) from the cache.
bases=(--build-arg NODE_BUILD_IMAGE="$NODE_BUILD" --build-arg NODE_IMAGE="$NODE")
"$DOCKER" build -q --network host -f deploy/Dockerfile --target build -t till:ci-build "${bases[@]}" . >/dev/null
"$DOCKER" build -q --network host -f deploy/Dockerfile -t till:ci "${bases[@]}" . >/dev/null
SIZE=$("$DOCKER" image inspect till:ci --format '{{.Size}}')
echo "image till:ci: $((SIZE / 1024 / 1024)) MiB"
"$DOCKER" image prune -f >/dev/null

export TILL_IMAGE=till:ci POSTGRES_IMAGE=$POSTGRES DEBIAN_IMAGE=local/trixie PROMETHEUS_IMAGE=$PROMETHEUS
export TILL_CI_PORT=$PORT0 TILL_CI_PORT_1=$((PORT0 + 1)) TILL_CI_PORT_2=$((PORT0 + 2)) TILL_CI_PORT_3=$((PORT0 + 3)) TILL_CI_PORT_4=$((PORT0 + 4))
export TILL_URLS="http://127.0.0.1:$TILL_CI_PORT_2 http://127.0.0.1:$TILL_CI_PORT_3" CHECK_STATE="$RUN_DIR/check.json"
# deploy/monitoring/prometheus.yml with the instances at their addresses on the host's network, scraped every 2 s.
export TILL_CI_PROMETHEUS_CONFIG="$RUN_DIR/prometheus.yml"
sed -e "s/\"till-1:8080\", \"till-2:8080\"/\"127.0.0.1:$TILL_CI_PORT_2\", \"127.0.0.1:$TILL_CI_PORT_3\"/" -e 's/scrape_interval: 15s/scrape_interval: 2s/' \
  deploy/monitoring/prometheus.yml >"$TILL_CI_PROMETHEUS_CONFIG"
grep -q "127.0.0.1:$TILL_CI_PORT_3" "$TILL_CI_PROMETHEUS_CONFIG" || { echo "deploy/monitoring/prometheus.yml: the instances' targets not found"; exit 1; }
chmod 644 "$TILL_CI_PROMETHEUS_CONFIG"
"${COMPOSE[@]}" config -q
"${COMPOSE[@]}" --profile monitoring config -q
"${COMPOSE[@]}" build -q pgbouncer
step "compose up: two instances, PostgreSQL, PgBouncer"
"${COMPOSE[@]}" up -d --wait
"${COMPOSE[@]}" logs --no-color till-1 till-2 >"$RUN_DIR/first.log"
npx tsx scripts/containers/check.ts first "$RUN_DIR/first.log"

step "compose down and up again: the data kept"
"${COMPOSE[@]}" down
"${COMPOSE[@]}" up -d --wait
"${COMPOSE[@]}" logs --no-color till-1 till-2 >"$RUN_DIR/again.log"
npx tsx scripts/containers/check.ts again "$RUN_DIR/again.log"

step "the monitoring profile's Prometheus: both instances scraped, the alerts loaded, the dashboard's queries answered"
"${COMPOSE[@]}" --profile monitoring up -d prometheus
PROMETHEUS_URL="http://127.0.0.1:$TILL_CI_PORT_4" npx tsx scripts/containers/prometheus.ts

for s in till-1 till-2; do
  uid=$("${COMPOSE[@]}" exec -T "$s" id -u)
  [ "$uid" != 0 ] || { echo "$s runs as root"; exit 1; }
  echo "$s runs as uid $uid"
done
step "container stage passed"
