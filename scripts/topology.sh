#!/usr/bin/env bash
# A topology on one machine (docs/operations/deployment.md#a-topology-on-one-machine): a PostgreSQL 15 primary
# and a streaming replica (which every instance reads from: DATABASE_REPLICA_URL), PgBouncer in transaction mode,
# two API instances (SERVICE_ROLE=api) behind HAProxy,
# which checks /health/ready, and a worker (SERVICE_ROLE=worker). The database clients reach the primary through
# HAProxy's address that follows it (TOPOLOGY_POSTGRES_PORT: only the server not in recovery is up), so promoting
# the replica moves them without a restart (docs/scaling.md). PostgreSQL, PgBouncer and HAProxy listen on
# 127.0.0.1 (the instances on every interface: the service has no setting for the address), each on a port of its
# own; the state lives in one folder.
#
#   scripts/topology.sh up | down | status
#
# Needs the PostgreSQL 15 server binaries (TOPOLOGY_PG_BIN), pgbouncer, haproxy, curl, openssl and a built dist/.
# As root, PostgreSQL and PgBouncer run as the postgres user (initdb refuses root), who must be able to enter
# TOPOLOGY_DIR (default /tmp/roa-topology).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
TEMPLATES="$ROOT/scripts/topology"
STATE=${TOPOLOGY_DIR:-/tmp/roa-topology}
PG_BIN=${TOPOLOGY_PG_BIN:-/usr/lib/postgresql/15/bin}
PRIMARY_PORT=${TOPOLOGY_PRIMARY_PORT:-15432}
POSTGRES_PORT=${TOPOLOGY_POSTGRES_PORT:-15430}
REPLICA_PORT=${TOPOLOGY_REPLICA_PORT:-15433}
PGBOUNCER_PORT=${TOPOLOGY_PGBOUNCER_PORT:-16432}
HAPROXY_PORT=${TOPOLOGY_HAPROXY_PORT:-18080}
HAPROXY_STATS_PORT=${TOPOLOGY_HAPROXY_STATS_PORT:-18404}
API1_PORT=${TOPOLOGY_API1_PORT:-18081}
API2_PORT=${TOPOLOGY_API2_PORT:-18082}
WORKER_PORT=${TOPOLOGY_WORKER_PORT:-18083}
METRICS_BASE_PORT=${TOPOLOGY_METRICS_BASE_PORT:-19464}
READY_TIMEOUT_S=${TOPOLOGY_READY_TIMEOUT_S:-90}
INSTANCES=(api1 api2 worker)

log() { printf 'topology: %s\n' "$*" >&2; }
fail() {
  log "$*"
  exit 1
}

# PostgreSQL and PgBouncer refuse to run as root: as root they run as the postgres user.
as_pg() {
  if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

render() {
  sed -e "s|@STATE@|$STATE|g" -e "s|@PRIMARY_PORT@|$PRIMARY_PORT|g" -e "s|@PGBOUNCER_PORT@|$PGBOUNCER_PORT|g" \
    -e "s|@POSTGRES_PORT@|$POSTGRES_PORT|g" -e "s|@REPLICA_PORT@|$REPLICA_PORT|g" \
    -e "s|@HAPROXY_PORT@|$HAPROXY_PORT|g" -e "s|@HAPROXY_STATS_PORT@|$HAPROXY_STATS_PORT|g" \
    -e "s|@API1_PORT@|$API1_PORT|g" -e "s|@API2_PORT@|$API2_PORT|g" "$TEMPLATES/$1"
}

# psql as the superuser over the state folder's socket.
sql() {
  local port=$1
  shift
  as_pg "$PG_BIN/psql" -X -q -v ON_ERROR_STOP=1 -h "$STATE/run" -p "$port" -d postgres -At "$@"
}

# Runs, and is not a zombie waiting for init to reap it (the state is the field after the name's ")").
running() {
  local state
  state=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null) && [[ -n $state && $state != Z* ]]
}
# Alive: the pid in the file runs.
alive() { [ -f "$1" ] && running "$(head -n 1 "$1")"; }

port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

wait_ready() {
  local name=$1 url=$2 deadline=$((SECONDS + READY_TIMEOUT_S))
  until curl -fs -o /dev/null --max-time 2 "$url"; do
    alive "$STATE/run/$name.pid" || fail "$name exited: $(tail -n 20 "$STATE/logs/$name.log")"
    [ $SECONDS -lt $deadline ] || fail "$name is not ready after ${READY_TIMEOUT_S}s: $(tail -n 20 "$STATE/logs/$name.log")"
    sleep 0.5
  done
}

preflight() {
  local tool port
  for tool in "$PG_BIN/initdb" "$PG_BIN/pg_basebackup" "$PG_BIN/pg_ctl"; do
    [ -x "$tool" ] || fail "$tool is missing: apt-get install -y postgresql-15 (or set TOPOLOGY_PG_BIN)"
  done
  for tool in pgbouncer haproxy curl openssl; do
    command -v "$tool" >/dev/null || fail "$tool is missing: apt-get install -y pgbouncer haproxy curl openssl"
  done
  [ -f "$ROOT/dist/main.js" ] || fail "dist/main.js is missing: npm run build"
  [ ! -e "$STATE" ] || fail "$STATE exists: the topology is up (or was not torn down): scripts/topology.sh down"
  for port in "$PRIMARY_PORT" "$POSTGRES_PORT" "$REPLICA_PORT" "$PGBOUNCER_PORT" "$HAPROXY_PORT" "$HAPROXY_STATS_PORT" \
    "$API1_PORT" "$API2_PORT" "$WORKER_PORT" "$METRICS_BASE_PORT" $((METRICS_BASE_PORT + 1)) $((METRICS_BASE_PORT + 2)); do
    port_free "$port" || fail "port $port is taken: set the TOPOLOGY_*_PORT variables"
  done
}

start_primary() {
  log "primary: initdb, port $PRIMARY_PORT"
  as_pg "$PG_BIN/initdb" -D "$STATE/primary" --auth-local=peer --auth-host=scram-sha-256 -E UTF8 \
    --locale=C.UTF-8 >"$STATE/logs/initdb.log" 2>&1 || fail "initdb failed: $(cat "$STATE/logs/initdb.log")"
  render postgresql.conf | as_pg tee -a "$STATE/primary/postgresql.conf" >/dev/null
  render pg_hba.conf | as_pg tee "$STATE/primary/pg_hba.conf" >/dev/null
  as_pg "$PG_BIN/pg_ctl" -D "$STATE/primary" -l "$STATE/logs/primary.log" -w -t 30 start >/dev/null
  sql "$PRIMARY_PORT" <<SQL
CREATE ROLE replicator WITH REPLICATION LOGIN PASSWORD '$REPLICATOR_PASSWORD';
CREATE ROLE haproxy_check WITH LOGIN CONNECTION LIMIT 4;
CREATE ROLE orders WITH LOGIN PASSWORD '$ORDERS_PASSWORD';
CREATE DATABASE orders OWNER orders;
-- In force on every statement, pooled or not: through PgBouncer the service sends no startup parameters.
ALTER ROLE orders SET statement_timeout = 10000;
ALTER ROLE orders SET idle_in_transaction_session_timeout = 10000;
SQL
}

start_replica() {
  log "replica: pg_basebackup -R, port $REPLICA_PORT"
  printf '127.0.0.1:%s:*:replicator:%s\n' "$PRIMARY_PORT" "$REPLICATOR_PASSWORD" | as_pg tee "$STATE/run/pgpass" >/dev/null
  chmod 600 "$STATE/run/pgpass"
  as_pg env PGPASSFILE="$STATE/run/pgpass" "$PG_BIN/pg_basebackup" -h 127.0.0.1 -p "$PRIMARY_PORT" -U replicator \
    -D "$STATE/replica" -R -X stream -C -S topology_replica -c fast >"$STATE/logs/basebackup.log" 2>&1 ||
    fail "pg_basebackup failed: $(cat "$STATE/logs/basebackup.log")"
  echo "port = $REPLICA_PORT" | as_pg tee -a "$STATE/replica/postgresql.conf" >/dev/null
  as_pg "$PG_BIN/pg_ctl" -D "$STATE/replica" -l "$STATE/logs/replica.log" -w -t 30 start >/dev/null
}

start_pgbouncer() {
  log "pgbouncer: transaction mode, port $PGBOUNCER_PORT"
  as_pg mkdir -p "$STATE/pgbouncer"
  render pgbouncer.ini | as_pg tee "$STATE/pgbouncer/pgbouncer.ini" >/dev/null
  printf '"orders" "%s"\n' "$ORDERS_PASSWORD" | as_pg tee "$STATE/pgbouncer/userlist.txt" >/dev/null
  as_pg pgbouncer -d "$STATE/pgbouncer/pgbouncer.ini" </dev/null >/dev/null 2>&1 ||
    fail "pgbouncer failed: $(tail -n 20 "$STATE/logs/pgbouncer.log")"
}

start_instance() {
  local name=$1 port=$2 metrics_port=$3 role=$4
  (
    cd "$ROOT"
    exec env -i PATH="$PATH" NODE_ENV=production PORT="$port" METRICS_PORT="$metrics_port" \
      DATABASE_URL="$SERVICE_URL" ${SERVICE_DIRECT_URL:+DATABASE_DIRECT_URL="$SERVICE_DIRECT_URL"} DEVICE_CREDENTIALS_KEY="$DEVICE_CREDENTIALS_KEY" MIGRATIONS_RUN=false \
      DATABASE_REPLICA_URL="$REPLICA_URL" \
      SERVICE_ROLE="$role" ${TOPOLOGY_REDIS_URL:+REDIS_URL="$TOPOLOGY_REDIS_URL"} \
      ${TOPOLOGY_RATE_LIMIT_PER_MINUTE:+RATE_LIMIT_PER_MINUTE="$TOPOLOGY_RATE_LIMIT_PER_MINUTE"} \
      ${TOPOLOGY_WEBHOOK_ALLOW_PRIVATE:+WEBHOOK_ALLOW_PRIVATE="$TOPOLOGY_WEBHOOK_ALLOW_PRIVATE"} \
      setsid node dist/main.js </dev/null >"$STATE/logs/$name.log" 2>&1
  ) &
  echo $! >"$STATE/run/$name.pid"
}

start_services() {
  log "migrations, on the primary"
  (cd "$ROOT" && env -i PATH="$PATH" DATABASE_URL="$PRIMARY_URL" DEVICE_CREDENTIALS_KEY="$DEVICE_CREDENTIALS_KEY" \
    node dist/platform/database/migrate.js run >"$STATE/logs/migrate.log" 2>&1) ||
    fail "migrations failed: $(cat "$STATE/logs/migrate.log")"
  log "api1 :$API1_PORT, api2 :$API2_PORT, worker :$WORKER_PORT (DATABASE_URL: $SERVICE_DESCRIPTION)"
  start_instance api1 "$API1_PORT" "$METRICS_BASE_PORT" api
  start_instance api2 "$API2_PORT" $((METRICS_BASE_PORT + 1)) api
  start_instance worker "$WORKER_PORT" $((METRICS_BASE_PORT + 2)) worker
  wait_ready api1 "http://127.0.0.1:$API1_PORT/health/ready"
  wait_ready api2 "http://127.0.0.1:$API2_PORT/health/ready"
  wait_ready worker "http://127.0.0.1:$WORKER_PORT/health/ready"
}

# Before the services: the database clients reach the primary through it (listen postgres in haproxy.cfg).
start_haproxy() {
  log "haproxy :$HAPROXY_PORT, postgres :$POSTGRES_PORT (stats :$HAPROXY_STATS_PORT/stats)"
  render haproxy.cfg >"$STATE/haproxy.cfg"
  haproxy -c -f "$STATE/haproxy.cfg" >"$STATE/logs/haproxy-check.log" 2>&1 ||
    fail "haproxy refuses $STATE/haproxy.cfg: $(cat "$STATE/logs/haproxy-check.log")"
  haproxy -f "$STATE/haproxy.cfg" -p "$STATE/run/haproxy.pid" </dev/null >"$STATE/logs/haproxy.log" 2>&1
  local deadline=$((SECONDS + 15))
  until [ "$(writable_states 2>/dev/null || true)" = "$(printf 'primary UP\nreplica DOWN')" ]; do
    [ $SECONDS -lt $deadline ] || fail "haproxy does not find the primary (alone) writable: $(writable_states)"
    sleep 0.5
  done
}

wait_balanced() {
  local deadline=$((SECONDS + 15))
  until [ "$(backends_up)" -eq 2 ]; do
    [ $SECONDS -lt $deadline ] || fail "haproxy does not see both API instances up: $(backend_states)"
    sleep 0.5
  done
}

# "<server> UP" per line of one HAProxy proxy, from its statistics (CSV: pxname, svname, ..., status is the 18th field).
proxy_states() {
  curl -fsS --max-time 2 "http://127.0.0.1:$HAPROXY_STATS_PORT/stats;csv" |
    awk -F, -v proxy="$1" '$1 == proxy && $2 != "FRONTEND" && $2 != "BACKEND" { print $2, $18 }'
}
backend_states() { proxy_states api; }
writable_states() { proxy_states postgres; }
backends_up() { { backend_states 2>/dev/null || true; } | grep -c ' UP$' || true; }

# The ports and URLs, which `status` reads back and a shell can source to use the topology.
write_env() {
  cat >"$STATE/topology.env" <<ENV
PRIMARY_PORT=$PRIMARY_PORT
POSTGRES_PORT=$POSTGRES_PORT
REPLICA_PORT=$REPLICA_PORT
PGBOUNCER_PORT=$PGBOUNCER_PORT
HAPROXY_PORT=$HAPROXY_PORT
HAPROXY_STATS_PORT=$HAPROXY_STATS_PORT
API1_PORT=$API1_PORT
API2_PORT=$API2_PORT
WORKER_PORT=$WORKER_PORT
METRICS_BASE_PORT=$METRICS_BASE_PORT
PRIMARY_URL=$PRIMARY_URL
REPLICA_URL=$REPLICA_URL
POOLED_URL=$POOLED_URL
API_URL=http://127.0.0.1:$HAPROXY_PORT
DEVICE_CREDENTIALS_KEY=$DEVICE_CREDENTIALS_KEY
ENV
  chmod 600 "$STATE/topology.env"
}

up() {
  preflight
  mkdir -p "$STATE/run" "$STATE/logs"
  chmod 700 "$STATE"
  if [ "$(id -u)" -eq 0 ]; then chown -R postgres:postgres "$STATE"; fi
  # If anything below fails, take down what did start: nothing is left behind.
  trap 'log "up failed: taking down what started"; down' EXIT
  REPLICATOR_PASSWORD=$(openssl rand -hex 16)
  ORDERS_PASSWORD=$(openssl rand -hex 16)
  DEVICE_CREDENTIALS_KEY=${DEVICE_CREDENTIALS_KEY:-$(openssl rand -hex 32)}
  # The primary, wherever it is: HAProxy's address that follows it (PRIMARY_PORT is the first primary's own).
  PRIMARY_URL="postgres://orders:$ORDERS_PASSWORD@127.0.0.1:$POSTGRES_PORT/orders"
  REPLICA_URL="postgres://orders:$ORDERS_PASSWORD@127.0.0.1:$REPLICA_PORT/orders"
  POOLED_URL="postgres://orders:$ORDERS_PASSWORD@127.0.0.1:$PGBOUNCER_PORT/orders"
  if [ "${TOPOLOGY_POOLED:-0}" = 1 ]; then
    SERVICE_URL=$POOLED_URL SERVICE_DIRECT_URL=$PRIMARY_URL
    SERVICE_DESCRIPTION="PgBouncer :$PGBOUNCER_PORT, DATABASE_DIRECT_URL: the primary"
  else
    SERVICE_URL=$PRIMARY_URL SERVICE_DIRECT_URL='' SERVICE_DESCRIPTION="the primary through HAProxy :$POSTGRES_PORT (TOPOLOGY_POOLED=1: PgBouncer)"
  fi
  write_env
  start_primary
  start_replica
  start_haproxy
  start_pgbouncer
  start_services
  wait_balanced
  trap - EXIT
  log "up: http://127.0.0.1:$HAPROXY_PORT (variables: $STATE/topology.env)"
}

stop_pid() {
  local name=$1 file=$2 pid
  alive "$file" || return 0
  pid=$(head -n 1 "$file")
  kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq 1 50); do
    running "$pid" || return 0
    sleep 0.2
  done
  log "$name ($pid) ignores SIGTERM: SIGKILL"
  kill -KILL "$pid" 2>/dev/null || true
}

stop_postgres() {
  local dir=$1
  [ -f "$dir/postmaster.pid" ] || return 0
  as_pg "$PG_BIN/pg_ctl" -D "$dir" -m fast -w -t 20 stop >/dev/null || stop_pid "postgres $dir" "$dir/postmaster.pid"
}

down() {
  trap - EXIT
  if [ ! -d "$STATE" ]; then
    log "nothing to take down ($STATE does not exist)"
    return 0
  fi
  local name
  stop_pid haproxy "$STATE/run/haproxy.pid"
  for name in "${INSTANCES[@]}"; do stop_pid "$name" "$STATE/run/$name.pid"; done
  stop_pid pgbouncer "$STATE/run/pgbouncer.pid"
  stop_postgres "$STATE/replica"
  stop_postgres "$STATE/primary"
  rm -rf "$STATE"
  log "down: everything stopped, $STATE removed"
}

status() {
  [ -f "$STATE/topology.env" ] || fail "not up ($STATE/topology.env does not exist)"
  # shellcheck source=/dev/null
  . "$STATE/topology.env"
  local name file state
  for name in primary replica; do
    file="$STATE/$name/postmaster.pid"
    if alive "$file"; then state="running (pid $(head -n 1 "$file"))"; else state=stopped; fi
    printf '%-10s %s\n' "$name" "$state"
  done
  for name in pgbouncer "${INSTANCES[@]}" haproxy; do
    file="$STATE/run/$name.pid"
    if alive "$file"; then state="running (pid $(head -n 1 "$file"))"; else state=stopped; fi
    printf '%-10s %s\n' "$name" "$state"
  done
  local streaming
  streaming=$(sql "$PRIMARY_PORT" -c "SELECT application_name || ' ' || state || ' replay_lag=' || coalesce(replay_lag::text, '0') FROM pg_stat_replication" 2>/dev/null || true)
  printf 'replication %s\n' "${streaming:-not streaming}"
  printf 'haproxy backends:\n%s\n' "$(backend_states 2>/dev/null || echo 'stats unavailable')"
  printf 'haproxy postgres (up: the writable server):\n%s\n' "$(writable_states 2>/dev/null | sed 's/^/postgres /' || echo 'stats unavailable')"
}

case "${1:-}" in
  up) up ;;
  down) down ;;
  status) status ;;
  *)
    echo "usage: scripts/topology.sh up | down | status" >&2
    exit 2
    ;;
esac
