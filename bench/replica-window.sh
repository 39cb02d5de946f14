#!/usr/bin/env bash
# What closing the replica window for webhook receivers costs, and what the alternative would
# (docs/scaling.md#webhook-receivers-and-the-replica-window), with pgbench on a database of its own:
#
#   claim         the dispatcher's claim of 20 due deliveries of 20 companies, as before (then the 20 are made
#                 due again, in both claim variants)
#   claim+record  the same claim recording those companies' write positions (what the dispatcher sends now)
#   write+after   a company's write, then its position recorded in a statement of its own (the write's path now)
#   write+inside  the position recorded by the write's own statement, holding the company's row to the commit
#
# The claims run with synchronous_commit off: the claim's commit waits for the same fsync in both variants (it
# writes webhook_deliveries), which on a shared machine would drown the difference. The writes run as the
# service's do, with 1 and 8 clients of one company. Each pair runs in alternation, three times.
#
#   npm run build && BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres bench/replica-window.sh
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
SERVER_URL=${BENCH_DATABASE_URL:?BENCH_DATABASE_URL: a PostgreSQL server URL whose user may create databases}
SECONDS_EACH=${BENCH_SECONDS:-8}
DB=replica_window_bench
URL="${SERVER_URL%/*}/$DB"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

psql -X -q "$SERVER_URL" -c "DROP DATABASE IF EXISTS $DB" -c "CREATE DATABASE $DB"
(cd "$ROOT" && DATABASE_URL="$URL" DEVICE_CREDENTIALS_KEY=$(openssl rand -hex 32) node dist/platform/database/migrate.js run >/dev/null)
psql -X -q -v ON_ERROR_STOP=1 "$URL" <<'SQL'
INSERT INTO companies (name, site) SELECT 'Bench ' || n, 'SK' FROM generate_series(1, 20) AS n;
INSERT INTO webhook_endpoints (company_id, url, secret) SELECT id, 'https://example.com/hooks', 'sealed' FROM companies;
INSERT INTO events (company_id, order_id, type, data, transaction_id) SELECT id, 1, 'order.placed', '{}', 1 FROM companies;
INSERT INTO webhook_deliveries (event_id, endpoint_id, next_attempt_at)
  SELECT e.id, w.id, now() - interval '1 second' FROM events e JOIN webhook_endpoints w USING (company_id);
INSERT INTO company_write_positions (company_id, lsn) SELECT id, pg_current_wal_insert_lsn() FROM companies;
CREATE TABLE bench_writes (company_id integer NOT NULL, written_at timestamptz NOT NULL DEFAULT now());
SQL

claim() { # $1: the statement's tail after the claimed CTE
  cat <<SQL
WITH due AS (SELECT id FROM webhook_deliveries
             WHERE status = 'pending' AND next_attempt_at <= now() AND (in_flight_until IS NULL OR in_flight_until <= now())
             ORDER BY next_attempt_at LIMIT 20 FOR UPDATE SKIP LOCKED),
     claimed AS (UPDATE webhook_deliveries d
                 SET in_flight_until = now() + interval '31 seconds', attempt_count = d.attempt_count + 1,
                     next_attempt_at = now() + interval '31 seconds'
                 FROM due, webhook_endpoints w WHERE d.id = due.id AND w.id = d.endpoint_id AND w.disabled_at IS NULL
                 RETURNING d.id, d.attempt_count, w.company_id, w.url, w.secret, d.event_id)$1
UPDATE webhook_deliveries SET in_flight_until = NULL, attempt_count = 0, next_attempt_at = now() - interval '1 second'
WHERE in_flight_until IS NOT NULL;
SQL
}
RECORD="INSERT INTO company_write_positions AS p (company_id, lsn)
  SELECT company_id, pg_current_wal_insert_lsn() FROM (COMPANIES) AS companies ORDER BY company_id
  ON CONFLICT (company_id) DO UPDATE SET lsn = excluded.lsn WHERE p.lsn < excluded.lsn"

claim " SELECT id, url, secret, event_id FROM claimed;" >"$WORK/claim.sql"
claim ", positions AS (${RECORD/COMPANIES/SELECT DISTINCT company_id FROM claimed WHERE attempt_count = 1})
SELECT id, url, secret, event_id FROM claimed;" >"$WORK/claim+record.sql"
cat >"$WORK/write+after.sql" <<SQL
INSERT INTO bench_writes (company_id) VALUES (1);
${RECORD/COMPANIES/SELECT 1 AS company_id};
SQL
cat >"$WORK/write+inside.sql" <<SQL
WITH written AS (INSERT INTO bench_writes (company_id) VALUES (1) RETURNING company_id)
${RECORD/COMPANIES/SELECT DISTINCT company_id FROM written};
SQL

# One run: "<name> <clients>: <tps> transactions/s, <statement latencies in ms>".
run() {
  local name=$1 clients=$2 options=${3:-}
  local out
  psql -X -q "$URL" -c 'VACUUM webhook_deliveries, company_write_positions, bench_writes'
  out=$(PGOPTIONS=$options pgbench -n -r -M prepared -c "$clients" -j "$clients" -T "$SECONDS_EACH" -f "$WORK/$name.sql" "$URL" 2>&1)
  printf '%-13s %s client(s): %s tps; ms per statement: %s\n' "$name" "$clients" \
    "$(awk '/^tps =/ { printf "%.0f", $3 }' <<<"$out")" \
    "$(awk '/statement latencies/ { on = 1; next } on && NF > 1 { printf "%s ", $1 }' <<<"$out")"
}

for round in 1 2 3; do
  echo "round $round"
  run claim 1 '-c synchronous_commit=off'
  run claim+record 1 '-c synchronous_commit=off'
  for clients in 1 8; do
    run write+after "$clients"
    run write+inside "$clients"
  done
done
psql -X -q "$SERVER_URL" -c "DROP DATABASE $DB"
