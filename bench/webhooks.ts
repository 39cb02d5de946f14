import { once } from 'node:events';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Client } from 'pg';
import { hashSecret, issueSecret } from '../src/tokens/token-secret';
import { BENCH_DEVICE_CREDENTIALS_KEY, openBenchServer } from './bench-database';
import { appEnvironment, type ServerProcess, startServer } from './processes';
import { orderBody, percentile } from './samples';

/**
 * The webhook dispatcher, measured (`npx tsx bench/webhooks.ts <isolation|cost>`, DATABASE_URL naming a server the
 * bench may create the database `bench_webhooks` on; `--app` another build's dist/main.js to compare versions).
 *
 * - `isolation`: three companies, each placing `--rate` orders a second for `--duration` seconds through the API:
 *   one whose `--hung` endpoints never answer (each attempt ends at WEBHOOK_TIMEOUT_MS, `--timeout`), one whose
 *   receiver answers after 2 s, one whose receiver answers at once. Reports, per company, the latency from each
 *   event's timestamp to its arrival at the receiver (p50, p99, max) and how many arrived: what a receiver that
 *   misbehaves costs the others (CONTRACT §5: within a second, p99).
 * - `cost`: `--deliveries` events, each with one delivery to a receiver that answers 200 at once, written straight
 *   into the database (`--pattern burst`: all at once; `trickle`: one every `--every` ms), with no other traffic.
 *   Reports per delivery the dispatcher's statements and their planning + execution time (pg_stat_statements:
 *   the server needs shared_preload_libraries = pg_stat_statements and pg_stat_statements.track_planning = on),
 *   the app's CPU and its PostgreSQL backends' CPU (/proc).
 */

const APP_PORT = Number(process.env.BENCH_PORT ?? 4710);
const DATABASE = 'bench_webhooks';
const RESULTS_DIR = join(__dirname, 'results');
/** USER_HZ, 100 on every Linux this runs on. */
const CLOCK_TICKS_PER_SECOND = 100;
/** The role the bench writes and reads as: its statements are left out of the app's. */
const OBSERVER = 'bench_observer';
const SLOW_MS = 2_000;

interface Options {
  mode: 'isolation' | 'cost';
  app: string;
  label: string;
  duration: number;
  rate: number;
  hung: number;
  timeout: number;
  deliveries: number;
  /** The cost mode's endpoints, one company each: the deliveries go round-robin to them. */
  endpoints: number;
  pattern: 'burst' | 'trickle';
  every: number;
  /** More of the app's environment, `NAME=value` each (WEBHOOK_ENDPOINT_CONCURRENCY=8, say). */
  set: Record<string, string>;
  /** Run the app with --cpu-prof: its profile lands in bench/results/profiles when it stops (profile-summary.ts). */
  cpuProf: boolean;
}

function parseOptions(): Options {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      app: { type: 'string', default: 'dist/main.js' },
      label: { type: 'string', default: 'run' },
      duration: { type: 'string', default: '60' },
      rate: { type: 'string', default: '4' },
      hung: { type: 'string', default: '1' },
      timeout: { type: 'string', default: '15000' },
      deliveries: { type: 'string', default: '2000' },
      endpoints: { type: 'string', default: '1' },
      pattern: { type: 'string', default: 'burst' },
      every: { type: 'string', default: '10' },
      set: { type: 'string', multiple: true, default: [] },
      'cpu-prof': { type: 'boolean', default: false },
    },
  });
  const mode = positionals[0];
  if (mode !== 'isolation' && mode !== 'cost')
    throw new Error('Usage: bench/webhooks.ts <isolation|cost> [options]');
  if (values.pattern !== 'burst' && values.pattern !== 'trickle')
    throw new Error('--pattern is burst or trickle');
  return {
    mode,
    app: values.app,
    label: values.label,
    duration: Number(values.duration),
    rate: Number(values.rate),
    hung: Number(values.hung),
    timeout: Number(values.timeout),
    deliveries: Number(values.deliveries),
    endpoints: Number(values.endpoints),
    pattern: values.pattern,
    every: Number(values.every),
    set: Object.fromEntries(values.set.map((entry) => entry.split(/=(.*)/s).slice(0, 2))),
    cpuProf: values['cpu-prof'],
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const round = (value: number, digits = 3) => Math.round(value * 10 ** digits) / 10 ** digits;

interface Receiver {
  url: string;
  /** Arrival time of each event id (the first arrival: a receiver dedupes on webhook-id). */
  arrivals: Map<string, { at: number; timestamp: number }>;
  received: () => number;
  close: () => Promise<void>;
}

/** A receiver on loopback that answers after `delayMs`, or never (null), and notes when each event arrived. */
async function startReceiver(delayMs: number | null): Promise<Receiver> {
  const arrivals = new Map<string, { at: number; timestamp: number }>();
  let received = 0;
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const at = Date.now();
      received += 1;
      const event = JSON.parse(Buffer.concat(chunks).toString()) as { id: string; timestamp: string };
      if (!arrivals.has(event.id)) arrivals.set(event.id, { at, timestamp: Date.parse(event.timestamp) });
      if (delayMs === null) return;
      setTimeout(() => response.writeHead(200).end(), delayMs);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    arrivals,
    received: () => received,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** The machine's 1-minute load average, sampled every 5 s while a measurement runs: the machine is shared. */
function sampleLoad(): () => { min: number; max: number } {
  const samples = [loadavg()[0]];
  const timer = setInterval(() => samples.push(loadavg()[0]), 5_000);
  return () => {
    clearInterval(timer);
    samples.push(loadavg()[0]);
    return { min: round(Math.min(...samples), 2), max: round(Math.max(...samples), 2) };
  };
}

/** CPU time used so far by a process (utime + stime), in ms; 0 once it has gone. */
function cpuMsOf(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * (1000 / CLOCK_TICKS_PER_SECOND);
  } catch {
    return 0;
  }
}

interface Bench {
  url: string;
  observer: Client;
  app: ServerProcess;
  adminToken: string;
  stop: () => Promise<void>;
}

/** A fresh migrated database, an admin token written into it, the app started on it with `env`. */
async function prepare(options: Options, env: Record<string, string>): Promise<Bench> {
  const server = await openBenchServer();
  await server.recreate(DATABASE);
  const url = server.urlOf(DATABASE);
  const setup = new Client({ connectionString: url });
  await setup.connect();
  await setup.query(
    `DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '${OBSERVER}') THEN CREATE ROLE ${OBSERVER} LOGIN SUPERUSER; END IF; END $$`,
  );
  if (options.mode === 'cost') await setup.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
  const secret = issueSecret();
  await setup.query(
    `INSERT INTO api_tokens (token_hash, prefix, role, user_name) VALUES ($1, $2, 'admin', 'bench')`,
    [hashSecret(secret.token), secret.prefix],
  );
  await setup.end();
  const observerUrl = new URL(url);
  observerUrl.username = OBSERVER;
  const observer = new Client({ connectionString: observerUrl.toString() });
  await observer.connect();
  const app = await startServer(
    'app',
    [
      ...(options.cpuProf ? ['--cpu-prof', `--cpu-prof-dir=${join(RESULTS_DIR, 'profiles')}`] : []),
      options.app,
    ],
    APP_PORT,
    {
      ...appEnvironment(url, BENCH_DEVICE_CREDENTIALS_KEY),
      METRICS_PORT: '0',
      WEBHOOK_ALLOW_PRIVATE: 'true',
      ADMIN_RATE_LIMIT_PER_MINUTE: '1000000000',
      WEBHOOK_TIMEOUT_MS: String(options.timeout),
      ...options.set,
      ...env,
    },
    '/health/ready',
  );
  return {
    url,
    observer,
    app,
    adminToken: secret.token,
    stop: async () => {
      await app.stop();
      await observer.end();
      await server.drop(DATABASE);
      await server.stop();
    },
  };
}

async function call<T>(bench: Bench, token: string, path: string, body: unknown): Promise<T> {
  const response = await fetch(`${bench.app.baseUrl}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`POST ${path}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

/** A company with a partner token and endpoints at the given URLs. */
async function company(bench: Bench, name: string, urls: string[]): Promise<string> {
  const { id } = await call<{ id: number }>(bench, bench.adminToken, '/api/v2/admin/companies', {
    name,
    site: 'AT',
  });
  for (const url of urls)
    await call(bench, bench.adminToken, '/api/v2/admin/webhooks', { company_id: id, url });
  const { token } = await call<{ token: string }>(bench, bench.adminToken, '/api/v2/admin/tokens', {
    role: 'partner',
    user_name: `${name}-partner`,
    company_id: id,
  });
  return token;
}

interface Latencies {
  sent: number;
  arrived: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

function latencies(receiver: Receiver, eventIds: string[]): Latencies {
  const sorted = eventIds
    .map((id) => receiver.arrivals.get(id))
    .filter((arrival) => arrival !== undefined)
    .map((arrival) => arrival.at - arrival.timestamp)
    .sort((a, b) => a - b);
  return {
    sent: eventIds.length,
    arrived: sorted.length,
    p50Ms: percentile(sorted, 0.5),
    p99Ms: percentile(sorted, 0.99),
    maxMs: sorted.length ? sorted[sorted.length - 1] : NaN,
  };
}

async function isolation(options: Options): Promise<Record<string, unknown>> {
  const hung = await startReceiver(null);
  const slow = await startReceiver(SLOW_MS);
  const fast = await startReceiver(0);
  const bench = await prepare(options, {});
  try {
    const { id: productId } = await call<{ id: number }>(bench, bench.adminToken, '/api/v2/admin/products', {
      name: 'Bench terminal',
      variations: [],
    });
    const companies = {
      hung: await company(
        bench,
        'hung',
        Array.from({ length: options.hung }, (_, index) => `${hung.url}/hook-${index}`),
      ),
      slow: await company(bench, 'slow', [`${slow.url}/hook`]),
      fast: await company(bench, 'fast', [`${fast.url}/hook`]),
    };
    const placed: Record<keyof typeof companies, string[]> = { hung: [], slow: [], fast: [] };
    const cpuBefore = bench.app.cpuTimeMs();
    const backendsBefore = await backendsCpuMs(bench);
    const load = sampleLoad();
    const started = Date.now();
    let n = 0;
    // Each tick places one order of each company, at the same time, `rate` ticks a second.
    for (let tick = 0; Date.now() - started < options.duration * 1000; tick += 1) {
      await Promise.all(
        (Object.keys(companies) as (keyof typeof companies)[]).map(async (name) => {
          const { orders } = await call<{ orders: { order_id: string }[] }>(
            bench,
            companies[name],
            '/api/v2/order',
            orderBody(productId, (n += 1), 'Bench'),
          );
          placed[name].push(orders[0].order_id);
        }),
      );
      const nextTickAt = started + ((tick + 1) * 1000) / options.rate;
      await sleep(Math.max(0, nextTickAt - Date.now()));
    }
    const placing = Date.now() - started;
    const appCpu = bench.app.cpuTimeMs() - cpuBefore;
    const backendCpu = cpuSince(backendsBefore, await backendsCpuMs(bench));
    const [queue] = (
      await bench.observer.query<{ due: string; pending: string }>(
        `SELECT count(*) FILTER (WHERE next_attempt_at <= now()) AS due, count(*) AS pending
         FROM webhook_deliveries WHERE status = 'pending'`,
      )
    ).rows;
    // The events of each order (order.placed is the only one): wait until the fast and the slow company's have
    // all arrived (a minute at most).
    const eventsOf = async (orderIds: string[]) =>
      (
        await bench.observer.query<{ id: string }>(
          `SELECT 'evt_' || id AS id FROM events WHERE type = 'order.placed' AND order_id = ANY ($1::integer[])`,
          [orderIds],
        )
      ).rows.map((row) => row.id);
    const fastEvents = await eventsOf(placed.fast);
    const slowEvents = await eventsOf(placed.slow);
    const arrived = (receiver: Receiver, ids: string[]) => ids.every((id) => receiver.arrivals.has(id));
    const drainedBy = Date.now() + 60_000;
    while (!(arrived(fast, fastEvents) && arrived(slow, slowEvents)) && Date.now() < drainedBy)
      await sleep(100);
    const result = {
      mode: 'isolation',
      label: options.label,
      app: options.app,
      options,
      placingSeconds: round(placing / 1000, 1),
      cpuMsPerOrder: { app: round(appCpu / (n || 1), 2), postgres: round(backendCpu / (n || 1), 2) },
      pendingAtEnd: { due: Number(queue.due), all: Number(queue.pending) },
      fast: latencies(fast, fastEvents),
      slow: latencies(slow, slowEvents),
      hungAttempts: hung.received(),
      loadAverage: loadavg().map((value) => round(value, 2)),
      /** The 1-minute load average's lowest and highest sample from the first placement to the drain. */
      load: load(),
    };
    return result;
  } finally {
    await hung.close();
    await bench.stop();
    await slow.close();
    await fast.close();
  }
}

/** The CPU so far of the app's PostgreSQL backends (its connections to the bench database, the bench's left out). */
async function backendsCpuMs(bench: Bench): Promise<Map<number, number>> {
  const { rows } = await bench.observer.query<{ pid: number }>(
    `SELECT pid FROM pg_stat_activity WHERE datname = $1 AND usename <> $2`,
    [DATABASE, OBSERVER],
  );
  return new Map(rows.map((row) => [row.pid, cpuMsOf(row.pid)]));
}

/** The CPU the backends used between two readings (a connection opened meanwhile counts from zero). */
const cpuSince = (before: Map<number, number>, after: Map<number, number>): number =>
  [...after].reduce((sum, [pid, cpu]) => sum + cpu - (before.get(pid) ?? 0), 0);

async function cost(options: Options): Promise<Record<string, unknown>> {
  const receiver = await startReceiver(0);
  const bench = await prepare(options, {});
  try {
    const companyIds: number[] = [];
    for (let index = 0; index < options.endpoints; index += 1) {
      const { id } = await call<{ id: number }>(bench, bench.adminToken, '/api/v2/admin/companies', {
        name: `cost-${index}`,
        site: 'AT',
      });
      await call(bench, bench.adminToken, '/api/v2/admin/webhooks', {
        company_id: id,
        url: `${receiver.url}/hook-${index}`,
      });
      companyIds.push(id);
    }
    // The bench's own inserts skip the foreign-key checks: PostgreSQL runs those as the tables' owner, so
    // pg_stat_statements would count them as the app's statements (four per delivery).
    await bench.observer.query('SET session_replication_role = replica');
    let queued = 0;
    // `count` events, each of the next company in turn, with its endpoint's delivery, due at once.
    const queue = (count: number) =>
      bench.observer.query(
        `WITH event AS (
           INSERT INTO events (company_id, order_id, type, data, transaction_id)
           SELECT ($1::integer[])[1 + (($3 + n) % cardinality($1::integer[]))], n, 'order.placed',
             json_build_object('order_id', n, 'order_ref', 'AT-' || lpad(n::text, 7, '0'), 'order_type', 'REGULAR',
               'state', 'PLACED'),
             pg_current_xact_id()::text::bigint
           FROM generate_series(1, $2) AS n
           RETURNING id, type, company_id)
         INSERT INTO webhook_deliveries (event_id, event_type, endpoint_id, next_attempt_at)
         SELECT event.id, event.type, endpoint.id, now() FROM event
         JOIN webhook_endpoints endpoint ON endpoint.company_id = event.company_id`,
        [companyIds, count, (queued += count)],
      );
    const drain = async (total: number) => {
      const deadline = Date.now() + 300_000;
      for (;;) {
        const { rows } = await bench.observer.query<{ n: string }>(
          `SELECT count(*) AS n FROM webhook_deliveries WHERE status = 'pending'`,
        );
        if (receiver.received() >= total && rows[0].n === '0') return;
        if (Date.now() > deadline) throw new Error('The deliveries did not complete within 5 minutes');
        await sleep(50);
      }
    };
    // Warm-up: every pooled connection prepares what it prepares.
    await queue(200);
    await drain(200);
    await sleep(1_000);
    await bench.observer.query('SELECT pg_stat_statements_reset()');
    const backendsBefore = await backendsCpuMs(bench);
    const appBefore = bench.app.cpuTimeMs();
    const load = sampleLoad();
    const started = Date.now();
    if (options.pattern === 'burst') await queue(options.deliveries);
    else {
      for (let sent = 0; sent < options.deliveries; sent += 1) {
        await queue(1);
        await sleep(options.every);
      }
    }
    await drain(200 + options.deliveries);
    const elapsed = Date.now() - started;
    const appCpu = bench.app.cpuTimeMs() - appBefore;
    const backendCpu = cpuSince(backendsBefore, await backendsCpuMs(bench));
    const { rows } = await bench.observer.query<{ query: string; calls: string; plan: number; exec: number }>(
      `SELECT s.query, s.calls, s.total_plan_time AS plan, s.total_exec_time AS exec
       FROM pg_stat_statements s JOIN pg_roles r ON r.oid = s.userid
       WHERE s.dbid = (SELECT oid FROM pg_database WHERE datname = current_database()) AND r.rolname <> $1
       ORDER BY s.calls DESC`,
      [OBSERVER],
    );
    const [attempts] = (
      await bench.observer.query<{ p50: number; p99: number }>(
        `SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY duration_ms) AS p50,
           percentile_cont(0.99) WITHIN GROUP (ORDER BY duration_ms) AS p99 FROM webhook_attempts`,
      )
    ).rows;
    const sinceEvent = [...receiver.arrivals.values()].map((arrival) => arrival.at - arrival.timestamp);
    sinceEvent.sort((a, b) => a - b);
    const per = (total: number) => round(total / options.deliveries);
    const sum = (pick: (row: (typeof rows)[number]) => number) =>
      rows.reduce((total, row) => total + pick(row), 0);
    return {
      mode: 'cost',
      label: options.label,
      app: options.app,
      options,
      seconds: round(elapsed / 1000, 1),
      attemptMs: { p50: attempts.p50, p99: attempts.p99 },
      /** From each event's timestamp to its arrival at the receiver, warm-up included. */
      deliveryMs: { p50: percentile(sinceEvent, 0.5), p99: percentile(sinceEvent, 0.99) },
      perDelivery: {
        statements: per(sum((row) => Number(row.calls))),
        planMs: per(sum((row) => row.plan)),
        execMs: per(sum((row) => row.exec)),
        appCpuMs: per(appCpu),
        backendCpuMs: per(backendCpu),
      },
      statements: rows.slice(0, 8).map((row) => ({
        calls: Number(row.calls),
        planMs: round(row.plan),
        execMs: round(row.exec),
        query: row.query.replace(/\s+/g, ' ').slice(0, 100),
      })),
      loadAverage: loadavg().map((value) => round(value, 2)),
      /** The 1-minute load average's lowest and highest sample while the deliveries were sent. */
      load: load(),
    };
  } finally {
    await bench.stop();
    await receiver.close();
  }
}

async function main(): Promise<void> {
  const options = parseOptions();
  const result = options.mode === 'isolation' ? await isolation(options) : await cost(options);
  console.log(JSON.stringify(result, null, 2));
  mkdirSync(RESULTS_DIR, { recursive: true });
  const file = join(
    RESULTS_DIR,
    `webhooks-${options.mode}-${options.label}-${new Date().toISOString().replace(/[:.]/g, '-')}.json`,
  );
  writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
  console.log(`Wrote ${file}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
