import { once } from 'node:events';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Client } from 'pg';
import { hashSecret, issueSecret } from '../src/tokens/token-secret';
import { BENCH_DEVICE_CREDENTIALS_KEY, benchDatabaseName, openBenchServer } from './bench-database';
import { backendCpuMs, backendOf, postmasterOf } from './pg-backends';
import { appEnvironment, startServer } from './processes';
import { filterScenarios, prepareSamples } from './scenarios';
import { BENCH_COMPANY_ID } from './seed';

/**
 * PostgreSQL's own cost of one request: `npm run bench:pg-cpu` (DATABASE_URL names a server started with
 * shared_preload_libraries = pg_stat_statements and pg_stat_statements.track_planning = on). For each kind of
 * request it runs the compiled app on a copy of the seeded database (on the seeded database itself when only
 * list pages are measured: a copy of 10M orders takes minutes), sends `--requests` of them (after a
 * warm-up, so each pooled connection has prepared what it prepares) and reads two things PostgreSQL measures:
 * - planning and execution time of the app's statements (pg_stat_statements, total_plan_time +
 *   total_exec_time), per request;
 * - CPU time (user + system, /proc/<pid>/stat) of the app's server processes, per request: planning,
 *   execution, parsing, commits, everything the backend does.
 * The bench reads both as another role, so its own statements are not counted.
 */

const APP_PORT = Number(process.env.BENCH_PORT ?? 4200);
const RESULTS_DIR = join(__dirname, 'results');
/** The role the bench observes as: its statements and its backend are left out of every figure. */
const OBSERVER = 'bench_observer';

const SENT = 'POST /logistics/orders/{id}/sent';
const DELIVERY = 'webhook delivery';
const WRITES = [SENT, DELIVERY];

interface Options {
  orders: number;
  requests: number;
  warmup: number;
  concurrency: number;
  only?: RegExp;
  /** The compiled app to run: dist/main.js, or another build's (to compare two versions on one load). */
  app: string;
}

interface Request {
  method: 'GET' | 'POST';
  path: string;
  token: string;
}

/** One kind of request: the requests to send (warm-up first), or its own run (the deliveries). */
interface Kind {
  name: string;
  requests?: (count: number) => Request[];
  run?: (count: number) => Promise<void>;
}

interface Figures {
  kind: string;
  requests: number;
  statementsPerRequest: number;
  planMsPerRequest: number;
  execMsPerRequest: number;
  backendCpuMsPerRequest: number;
  /** The statements that cost most, per request: plan and execution ms, and calls. */
  top: { query: string; calls: number; planMs: number; execMs: number }[];
  loadAverage: number[];
}

const round = (value: number) => Math.round(value * 1000) / 1000;

function parseOptions(): Options {
  const { values } = parseArgs({
    options: {
      orders: { type: 'string', default: '1000000' },
      requests: { type: 'string', default: '400' },
      warmup: { type: 'string', default: '100' },
      concurrency: { type: 'string', default: '4' },
      only: { type: 'string' },
      app: { type: 'string', default: 'dist/main.js' },
    },
  });
  return {
    orders: Number(values.orders),
    requests: Number(values.requests),
    warmup: Number(values.warmup),
    concurrency: Number(values.concurrency),
    only: values.only ? new RegExp(values.only) : undefined,
    app: values.app,
  };
}

/** Sends the requests, `concurrency` at a time; any non-2xx answer stops the bench. */
async function send(baseUrl: string, requests: Request[], concurrency: number): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < requests.length) {
      const request = requests[next++];
      const response = await fetch(baseUrl + request.path, {
        method: request.method,
        headers: { authorization: `Bearer ${request.token}`, 'content-type': 'application/json' },
      });
      await response.arrayBuffer();
      if (!response.ok) throw new Error(`${request.method} ${request.path}: ${response.status}`);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

async function insertToken(client: Client, role: 'partner' | 'logistics' | 'admin'): Promise<string> {
  const secret = issueSecret();
  await client.query(
    `INSERT INTO api_tokens (token_hash, prefix, role, user_name, company_id) VALUES ($1, $2, $3, 'bench', $4)`,
    [hashSecret(secret.token), secret.prefix, role, role === 'partner' ? BENCH_COMPANY_ID : null],
  );
  return secret.token;
}

/** A webhook receiver on loopback that answers 200 and counts what it received. */
async function startReceiver(): Promise<{ url: string; received: () => number; stop: () => void }> {
  let received = 0;
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      received += 1;
      response.writeHead(200).end();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    received: () => received,
    stop: () => server.close(),
  };
}

async function main(): Promise<void> {
  const options = parseOptions();
  const bench = await openBenchServer();
  const seeded = benchDatabaseName(options.orders);
  const copy = `${seeded}_pgcpu`;
  if (!(await bench.exists(seeded)))
    throw new Error(`${seeded} is missing: npm run bench:seed -- --orders ${options.orders}`);
  // The kinds that write (the logistics sent, the deliveries) work on a copy, so the seeded data stays as seeded.
  const writes = !options.only || WRITES.some((name) => options.only!.test(name));
  if (writes) await bench.clone(seeded, copy);
  const url = bench.urlOf(writes ? copy : seeded);
  const admin = new Client({ connectionString: url });
  await admin.connect();
  const receiver = await startReceiver();
  let app: Awaited<ReturnType<typeof startServer>> | undefined;
  const results: Figures[] = [];
  try {
    const settings = await admin.query<{ name: string; setting: string }>(
      `SELECT name, setting FROM pg_settings WHERE name IN ('shared_preload_libraries', 'pg_stat_statements.track_planning')`,
    );
    const setting = (name: string) => settings.rows.find((row) => row.name === name)?.setting ?? '';
    if (
      !setting('shared_preload_libraries').includes('pg_stat_statements') ||
      setting('pg_stat_statements.track_planning') !== 'on'
    )
      throw new Error(
        'The server needs shared_preload_libraries = pg_stat_statements and pg_stat_statements.track_planning = on',
      );
    await admin.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
    await admin.query(
      `DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '${OBSERVER}') THEN CREATE ROLE ${OBSERVER} LOGIN SUPERUSER; END IF; END $$`,
    );
    const samples = await prepareSamples(url);
    const logistics = await insertToken(admin, 'logistics');
    const adminToken = await insertToken(admin, 'admin');
    const placed = (
      await admin.query<{ id: number }>(
        `SELECT id FROM orders WHERE state = 'PLACED' AND NOT test ORDER BY random() LIMIT $1`,
        [(options.warmup + options.requests) * 2],
      )
    ).rows.map((row) => row.id);
    const observerUrl = new URL(url);
    observerUrl.username = OBSERVER;
    const observer = new Client({ connectionString: observerUrl.toString() });
    await observer.connect();
    await admin.end();

    app = await startServer(
      'app',
      [options.app],
      APP_PORT,
      {
        ...appEnvironment(url, BENCH_DEVICE_CREDENTIALS_KEY),
        METRICS_PORT: '0',
        WEBHOOK_ALLOW_PRIVATE: 'true',
      },
      '/health/ready',
    );
    const server = app;

    const list = (query: string) => (count: number) =>
      Array.from({ length: count }, () => ({ method: 'GET' as const, path: query, token: samples.token }));
    const filters = filterScenarios(samples);
    // Registered just before the deliveries are measured, so that no other kind of request makes deliveries.
    let endpoint: Promise<void> | undefined;
    const registerEndpoint = async () => {
      const created = await fetch(`${server.baseUrl}/api/v2/admin/webhooks`, {
        method: 'POST',
        headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ company_id: BENCH_COMPANY_ID, url: receiver.url }),
      });
      if (!created.ok)
        throw new Error(`Creating the webhook endpoint: ${created.status} ${await created.text()}`);
    };
    const kinds: Kind[] = [
      {
        name: SENT,
        requests: (count) =>
          placed.splice(0, count).map((id) => ({
            method: 'POST' as const,
            path: `/api/v2/logistics/orders/${id}/sent`,
            token: logistics,
          })),
      },
      { name: 'GET /order page 1', requests: list('/api/v2/order') },
      ...filters.map((filter): Kind => ({
        name: filter.name,
        requests: (count) =>
          Array.from({ length: count }, () => ({
            method: 'GET' as const,
            path: filter.path(),
            token: samples.token,
          })),
      })),
      {
        name: DELIVERY,
        run: async (count) => {
          // count events of company 1 with one pending delivery each, due at once: the dispatcher sends
          // them in its batches, the receiver answers 200, each attempt is recorded.
          await (endpoint ??= registerEndpoint());
          const before = receiver.received();
          await observer.query(
            `WITH event AS (
               INSERT INTO events (company_id, order_id, type, data, transaction_id)
               SELECT company_id, id, 'order.placed', json_build_object('order_id', id), pg_current_xact_id()::text::bigint
               FROM orders WHERE company_id = $1 ORDER BY id DESC LIMIT $2
               RETURNING id, type)
             INSERT INTO webhook_deliveries (event_id, event_type, endpoint_id, next_attempt_at)
             SELECT event.id, event.type, endpoint.id, now() FROM event CROSS JOIN webhook_endpoints endpoint
             WHERE endpoint.company_id = $1 AND endpoint.active`,
            [BENCH_COMPANY_ID, count],
          );
          const deadline = Date.now() + 120_000;
          for (;;) {
            const pending = await observer.query<{ n: string }>(
              `SELECT count(*) AS n FROM webhook_deliveries WHERE status = 'pending'`,
            );
            if (receiver.received() - before >= count && pending.rows[0].n === '0') return;
            if (Date.now() > deadline) throw new Error('The deliveries did not complete within 2 minutes');
            await new Promise((resolve) => setTimeout(resolve, 100));
          }
        },
      },
    ];

    const postmaster = await postmasterOf(observer);
    const appBackends = backendOf(new URL(url).username || 'postgres', new URL(url).pathname.slice(1));

    const measure = async (kind: Kind): Promise<Figures> => {
      const count = options.requests;
      if (kind.requests) await send(server.baseUrl, kind.requests(options.warmup), options.concurrency);
      else await kind.run!(Math.min(options.warmup, 40));
      const requests = kind.requests ? kind.requests(count) : [];
      await observer.query('SELECT pg_stat_statements_reset()');
      const { cpuMs } = await backendCpuMs(postmaster, appBackends, () =>
        kind.requests ? send(server.baseUrl, requests, options.concurrency) : kind.run!(count),
      );
      const { rows } = await observer.query<{ query: string; calls: string; plan: number; exec: number }>(
        `SELECT s.query, s.calls, s.total_plan_time AS plan, s.total_exec_time AS exec
         FROM pg_stat_statements s JOIN pg_roles r ON r.oid = s.userid
         WHERE s.dbid = (SELECT oid FROM pg_database WHERE datname = current_database()) AND r.rolname <> $1
         ORDER BY s.total_plan_time + s.total_exec_time DESC`,
        [OBSERVER],
      );
      const sum = (pick: (row: (typeof rows)[number]) => number) =>
        rows.reduce((total, row) => total + pick(row), 0);
      return {
        kind: kind.name,
        requests: count,
        statementsPerRequest: round(sum((row) => Number(row.calls)) / count),
        planMsPerRequest: round(sum((row) => row.plan) / count),
        execMsPerRequest: round(sum((row) => row.exec) / count),
        backendCpuMsPerRequest: round(cpuMs / count),
        top: rows.slice(0, 5).map((row) => ({
          query: row.query.replace(/\s+/g, ' ').slice(0, 120),
          calls: Number(row.calls),
          planMs: round(row.plan / count),
          execMs: round(row.exec / count),
        })),
        loadAverage: loadavg().map((value) => Math.round(value * 100) / 100),
      };
    };

    for (const kind of kinds.filter((candidate) => !options.only || options.only.test(candidate.name))) {
      const figures = await measure(kind);
      results.push(figures);
      console.log(
        `${figures.kind.padEnd(36)} plan ${String(figures.planMsPerRequest).padStart(6)} ms  exec ${String(figures.execMsPerRequest).padStart(6)} ms  backend CPU ${String(figures.backendCpuMsPerRequest).padStart(6)} ms  statements ${figures.statementsPerRequest}  (per request, ${figures.requests} requests, load ${figures.loadAverage.join(' ')})`,
      );
    }
    await observer.end();
  } finally {
    await app?.stop();
    receiver.stop();
    if (writes) await bench.drop(copy);
    await bench.stop();
  }
  mkdirSync(RESULTS_DIR, { recursive: true });
  const file = join(RESULTS_DIR, `pg-cpu-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  writeFileSync(
    file,
    `${JSON.stringify({ options: { ...options, only: options.only?.source }, results }, null, 2)}\n`,
  );
  console.log(`\nWrote ${file}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
