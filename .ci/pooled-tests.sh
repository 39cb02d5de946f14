#!/usr/bin/env bash
# Part of the e2e suite with every service and CLI behind PgBouncer in transaction mode (CONTRACT §9): a
# PostgreSQL 15 of its own (initdb in a temporary folder) and Debian's pgbouncer in front of it, passing every
# database through; the specs get TEST_DATABASE_URL (the server, where the harness creates the databases) and
# TEST_POOLER_URL (test/harness/test-database.ts). Takes the jest arguments (specs, --json ...). As root,
# PostgreSQL and PgBouncer run as the postgres user.
set -euo pipefail
cd "$(dirname "$0")/.."

PG_BIN=${POOLED_TESTS_PG_BIN:-/usr/lib/postgresql/15/bin}
PG_PORT=${POOLED_TESTS_PG_PORT:-23432}
POOLER_PORT=${POOLED_TESTS_POOLER_PORT:-23434}
state=$(mktemp -d /tmp/roa-pooled-tests.XXXXXX)
chmod 755 "$state"

as_pg() {
  if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}
[ "$(id -u)" -ne 0 ] || chown postgres "$state"

cleanup() {
  if [ -f "$state/pgbouncer.pid" ]; then kill "$(cat "$state/pgbouncer.pid")" 2>/dev/null || true; fi
  as_pg "$PG_BIN/pg_ctl" -D "$state/data" -m immediate -w stop >/dev/null 2>&1 || true
  rm -rf "$state"
}
trap cleanup EXIT

as_pg "$PG_BIN/initdb" -D "$state/data" -U postgres -A trust -E UTF8 --locale=C.UTF-8 >"$state/initdb.log"
cat <<CONF | as_pg tee -a "$state/data/postgresql.conf" >/dev/null
listen_addresses = '127.0.0.1'
port = $PG_PORT
unix_socket_directories = '$state'
max_connections = 300
fsync = off
synchronous_commit = off
full_page_writes = off
CONF
as_pg "$PG_BIN/pg_ctl" -D "$state/data" -l "$state/postgres.log" -w -t 30 start >/dev/null

cat <<INI | as_pg tee "$state/pgbouncer.ini" >/dev/null
[databases]
* = host=127.0.0.1 port=$PG_PORT user=postgres

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = $POOLER_PORT
unix_socket_dir =
auth_type = any
pool_mode = transaction
default_pool_size = 10
max_client_conn = 1000
ignore_startup_parameters = extra_float_digits
logfile = $state/pgbouncer.log
pidfile = $state/pgbouncer.pid
INI
as_pg pgbouncer -d "$state/pgbouncer.ini"

TEST_DATABASE_URL="postgres://postgres@127.0.0.1:$PG_PORT/postgres" \
  TEST_POOLER_URL="postgres://postgres@127.0.0.1:$POOLER_PORT/postgres" npx jest "$@"
