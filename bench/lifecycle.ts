import { once } from 'node:events';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { Agent, createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cpus, loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { Client } from 'pg';
import { hashSecret, issueSecret } from '../src/tokens/token-secret';
import {
  BENCH_DEVICE_CREDENTIALS_KEY,
  type BenchServer,
  benchDatabaseName,
  openBenchServer,
} from './bench-database';
import { backendCpuMs, backendOf, postmasterOf } from './pg-backends';
import { appEnvironment, type ServerProcess, startServer } from './processes';
import { type LayerShare, profileLayers } from './profile-layers';
import { placementBody } from './scenarios';
import { BENCH_COMPANY_ID, seedBenchDatabase } from './seed';

/**
 * Whole order lifecycles (issue 33): `npm run bench:lifecycle [-- --orders 1000000 --baseline ../other]`.
 * Each lifecycle is 7 requests: place → read → a list page → `sent` → a tracking with a dispatch date → the same
 * tracking with a delivery date → `final_completion_date` (COMPLETED), and the webhooks they make, every company
 * having one endpoint on a receiver in this process. A measurement counts only once every event of its orders
 * has reached the receiver. For each checkout (this one, and `--baseline <a built checkout>` beside it, each on
 * its own copy of the seeded database, measured in turn, round after round) it reports lifecycles/s and the CPU
 * ms per lifecycle of the service, of its PostgreSQL backends (/proc, the service's role on its database) and of
 * this process (the load generator and the receiver); then the CPU of each step (its request and its webhooks),
 * the ratios to the plain node:http server, and with `--cpu-prof` where the service's CPU goes by layer.
 */

const BASE_PORT = Number(process.env.BENCH_PORT ?? 4400);
const RESULTS_DIR = join(__dirname, 'results');
const ROOT = join(__dirname, '..');
/** What the caller may set for the apps under test: `DATABASE_POOL_SIZE=20 npm run bench:lifecycle`. */
const PASSED_THROUGH = ['NODE_OPTIONS', 'DATABASE_POOL_SIZE', 'WEBHOOK_POLL_INTERVAL_MS'];
/** The companies lifecycles are placed for, in turn (each with a partner token); every company has an endpoint. */
const PLACING_COMPANIES = 32;
/** The bench reads the database as this role, so its own statements and backend are never counted. */
const OBSERVER = 'bench_observer';
const DRAIN_TIMEOUT_MS = 120_000;

interface Options {
  orders: number;
  companies: number;
  concurrency: number[];
  lifecycles: number;
  rounds: number;
  baseline?: string;
  cpuProf: boolean;
  steps: boolean;
  ratios: boolean;
  ratioSeconds: number;
}

function parseOptions(): Options {
  const { values } = parseArgs({
    options: {
      orders: { type: 'string', default: '1000000' },
      companies: { type: 'string', default: '500' },
      concurrency: { type: 'string', default: '8,16,32' },
      lifecycles: { type: 'string', default: '160' },
      rounds: { type: 'string', default: '2' },
      baseline: { type: 'string' },
      'cpu-prof': { type: 'boolean', default: false },
      'no-steps': { type: 'boolean', default: false },
      'no-ratios': { type: 'boolean', default: false },
      'ratio-seconds': { type: 'string', default: '5' },
    },
  });
  return {
    orders: Number(values.orders),
    companies: Number(values.companies),
    concurrency: values.concurrency.split(',').map(Number),
    lifecycles: Number(values.lifecycles),
    rounds: Number(values.rounds),
    baseline: values.baseline ? resolve(values.baseline) : undefined,
    cpuProf: values['cpu-prof'],
    steps: !values['no-steps'],
    ratios: !values['no-ratios'],
    ratioSeconds: Number(values['ratio-seconds']),
  };
}

interface Answer {
  status: number;
  body: string;
}

/** One keep-alive HTTP client per app: the lightest load generator node:http makes. */
function client(baseUrl: string) {
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });
  const { hostname, port } = new URL(baseUrl);
  return (method: string, path: string, token: string, body?: unknown): Promise<Answer> =>
    new Promise((done, fail) => {
      const payload = body === undefined ? undefined : JSON.stringify(body);
      const sent = httpRequest(
        {
          agent,
          hostname,
          port,
          method,
          path,
          headers: {
            authorization: `Bearer ${token}`,
            ...(payload
              ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }
              : {}),
          },
        },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () =>
            done({ status: response.statusCode!, body: Buffer.concat(chunks).toString() }),
          );
          response.on('error', fail);
        },
      );
      sent.on('error', fail);
      sent.end(payload);
    });
}
type Call = ReturnType<typeof client>;

/** The receiver: counts each distinct webhook-id per app (the path names the app); answers 200 at once. */
async function startReceiver() {
  const received = new Map<string, Set<string>>();
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      const app = request.url ?? '';
      let ids = received.get(app);
      if (!ids) received.set(app, (ids = new Set()));
      ids.add(String(request.headers['webhook-id']));
      response.writeHead(200).end();
    });
  });
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    urlFor: (app: string) => `${base}/hook/${app}`,
    received: (app: string) => received.get(`/hook/${app}`)?.size ?? 0,
    stop: () => new Promise<void>((done) => server.close(() => done())),
  };
}
type Receiver = Awaited<ReturnType<typeof startReceiver>>;

/** A date-time of the API (service time zone UTC) a day before now, at `hour`. */
const yesterdayAt = (hour: string) =>
  `${new Date(Date.now() - 86_400_000).toISOString().slice(0, 10)}T${hour}`;

interface Lifecycle {
  company: number;
  orderId?: string;
}

interface Step {
  name: string;
  run: (call: Call, tokens: Tokens, lifecycle: Lifecycle) => Promise<void>;
}

interface Tokens {
  partner: Map<number, string>;
  logistics: string;
  admin: string;
}

const expect = async (answer: Promise<Answer>, statuses: number[], what: string): Promise<Answer> => {
  const { status, body } = await answer;
  if (!statuses.includes(status)) throw new Error(`${what}: ${status} ${body.slice(0, 300)}`);
  return { status, body };
};
const orderPath = (lifecycle: Lifecycle) => `/api/v2/order/${lifecycle.orderId}`;
const logisticsPath = (lifecycle: Lifecycle) => `/api/v2/logistics/orders/${lifecycle.orderId}`;
const tracking = (lifecycle: Lifecycle) => `${logisticsPath(lifecycle)}/trackings/LC-${lifecycle.orderId}`;

/** The lifecycle's tracking PUT with `body`: created first (201), replaced after (200). */
const trackingStep = (what: string, body: Record<string, string>, status: number): Step => ({
  name: `PUT tracking (${what})`,
  run: async (call, tokens, lifecycle) => {
    await expect(call('PUT', tracking(lifecycle), tokens.logistics, body), [status], `tracking, ${what}`);
  },
});

/** The seven requests of a lifecycle, in order. */
const STEPS: Step[] = [
  {
    name: 'POST /order',
    run: async (call, tokens, lifecycle) => {
      const { body } = await expect(
        call('POST', '/api/v2/order', tokens.partner.get(lifecycle.company)!, placementBody()),
        [201],
        'POST /order',
      );
      lifecycle.orderId = String((JSON.parse(body) as { orders: { order_id: string }[] }).orders[0].order_id);
    },
  },
  {
    name: 'GET /order/{id}',
    run: async (call, tokens, lifecycle) => {
      await expect(call('GET', orderPath(lifecycle), tokens.partner.get(lifecycle.company)!), [200], 'read');
    },
  },
  {
    name: 'GET /order (page 1)',
    run: async (call, tokens, lifecycle) => {
      await expect(call('GET', '/api/v2/order', tokens.partner.get(lifecycle.company)!), [200], 'list');
    },
  },
  {
    name: 'POST /logistics/orders/{id}/sent',
    run: async (call, tokens, lifecycle) => {
      await expect(call('POST', `${logisticsPath(lifecycle)}/sent`, tokens.logistics), [200], 'sent');
    },
  },
  trackingStep('dispatch date', { dispatch_date: yesterdayAt('08:00') }, 201),
  trackingStep(
    'delivery date',
    { dispatch_date: yesterdayAt('08:00'), delivery_date: yesterdayAt('12:00') },
    200,
  ),
  {
    name: 'PATCH final_completion_date',
    run: async (call, tokens, lifecycle) => {
      await expect(
        call('PATCH', logisticsPath(lifecycle), tokens.logistics, {
          final_completion_date: yesterdayAt('13:00'),
        }),
        [200],
        'completion',
      );
    },
  },
];

/** Runs `work` on each item, `concurrency` at a time. */
async function inParallel<T>(
  items: T[],
  concurrency: number,
  work: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++]);
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

/** A checkout under test: its server, its own copy of the database, its tokens. */
interface App {
  name: string;
  dir: string;
  database: string;
  port: number;
  server?: ServerProcess;
  call?: Call;
  tokens: Tokens;
  /** The events one lifecycle makes (counted in the warm-up). */
  eventsPerLifecycle: number;
  /** The last event before the bench began: every later one is the bench's. */
  firstEventId: string;
  /** The events delivered so far (the last drain's count). */
  eventsDrained: number;
}

interface Counters {
  serviceMs: number;
  postgresMs: number;
  generatorMs: number;
  wallMs: number;
  events: number;
}

interface Bench {
  options: Options;
  server: BenchServer;
  observers: Map<string, Client>;
  postmaster: number;
  receiver: Receiver;
}

const generatorCpuMs = () => {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
};

/**
 * Waits until the receiver holds every event the app's outbox has since the bench began (every company has
 * an endpoint, and only the bench writes): the drain. Returns how many events arrived since the last drain.
 */
async function drain(bench: Bench, app: App): Promise<number> {
  const { rows } = await bench.observers
    .get(app.name)!
    .query<{ n: string }>('SELECT count(*) AS n FROM events WHERE id > $1', [app.firstEventId]);
  const expected = Number(rows[0].n);
  const deadline = Date.now() + DRAIN_TIMEOUT_MS;
  while (bench.receiver.received(app.name) < expected) {
    if (Date.now() > deadline)
      throw new Error(
        `${app.name}: ${bench.receiver.received(app.name)} of ${expected} webhooks within ${DRAIN_TIMEOUT_MS} ms`,
      );
    await new Promise((done) => setTimeout(done, 5));
  }
  const events = expected - app.eventsDrained;
  app.eventsDrained = expected;
  return events;
}

/** Measures `work` and the drain of the webhooks it made on `app`. */
async function counted(bench: Bench, app: App, work: () => Promise<unknown>): Promise<Counters> {
  const service = app.server!.cpuTimeMs();
  const generator = generatorCpuMs();
  const started = Date.now();
  const { cpuMs, result: events } = await backendCpuMs(
    bench.postmaster,
    backendOf('postgres', app.database),
    async () => {
      await work();
      return drain(bench, app);
    },
  );
  return {
    serviceMs: app.server!.cpuTimeMs() - service,
    postgresMs: cpuMs,
    generatorMs: generatorCpuMs() - generator,
    wallMs: Date.now() - started,
    events,
  };
}

/** Lifecycles begun so far: each new one is placed for the next company in turn. */
let begun = 0;
const newLifecycles = (count: number): Lifecycle[] =>
  Array.from({ length: count }, () => ({ company: 1 + (begun++ % PLACING_COMPANIES) }));

async function runLifecycles(app: App, count: number, concurrency: number): Promise<void> {
  await inParallel(newLifecycles(count), concurrency, async (lifecycle) => {
    for (const step of STEPS) await step.run(app.call!, app.tokens, lifecycle);
  });
}

/** A profiled run's layers, with the service CPU per lifecycle measured in it (the profile's time is sampled). */
interface ProfiledLayers {
  app: string;
  serviceMs: number;
  busyMs: number;
  layers: LayerShare[];
}

interface LifecycleRow {
  app: string;
  round: number;
  concurrency: number;
  lifecycles: number;
  lifecyclesPerSecond: number;
  eventsPerLifecycle: number;
  cpuMsPerLifecycle: { service: number; postgres: number; generator: number };
  peakRssMb: number;
  loadAverage: number;
}

const round2 = (value: number) => Math.round(value * 100) / 100;

async function measureLifecycles(
  bench: Bench,
  app: App,
  concurrency: number,
  round: number,
): Promise<LifecycleRow> {
  const count = bench.options.lifecycles;
  app.server!.resetPeakRss();
  const counters = await counted(bench, app, () => runLifecycles(app, count, concurrency));
  const row: LifecycleRow = {
    app: app.name,
    round,
    concurrency,
    lifecycles: count,
    lifecyclesPerSecond: round2((count * 1000) / counters.wallMs),
    eventsPerLifecycle: round2(counters.events / count),
    cpuMsPerLifecycle: {
      service: round2(counters.serviceMs / count),
      postgres: round2(counters.postgresMs / count),
      generator: round2(counters.generatorMs / count),
    },
    peakRssMb: app.server!.peakRssMb(),
    loadAverage: round2(loadavg()[0]),
  };
  console.log(
    `${app.name.padEnd(9)} round ${round} c=${String(concurrency).padStart(2)}  ${String(row.lifecyclesPerSecond).padStart(6)} lifecycles/s  CPU ms/lifecycle: service ${row.cpuMsPerLifecycle.service}  PostgreSQL ${row.cpuMsPerLifecycle.postgres}  load generator ${row.cpuMsPerLifecycle.generator}  (${row.eventsPerLifecycle} webhooks each, peak RSS ${row.peakRssMb} MB, load ${row.loadAverage})`,
  );
  return row;
}

interface StepRow {
  app: string;
  step: string;
  serviceMs: number;
  postgresMs: number;
  webhooks: number;
}

/** Each step for `count` lifecycles at once (16 at a time) and its webhooks' drain: the CPU of each step. */
async function measureSteps(bench: Bench, app: App, count: number): Promise<StepRow[]> {
  const lifecycles = newLifecycles(count);
  const rows: StepRow[] = [];
  for (const step of STEPS) {
    const counters = await counted(bench, app, () =>
      inParallel(lifecycles, 16, (lifecycle) => step.run(app.call!, app.tokens, lifecycle)),
    );
    rows.push({
      app: app.name,
      step: step.name,
      serviceMs: round2(counters.serviceMs / count),
      postgresMs: round2(counters.postgresMs / count),
      webhooks: round2(counters.events / count),
    });
    console.log(
      `${app.name.padEnd(9)} ${step.name.padEnd(34)} service ${rows.at(-1)!.serviceMs} ms  PostgreSQL ${rows.at(-1)!.postgresMs} ms  webhooks ${rows.at(-1)!.webhooks}`,
    );
  }
  return rows;
}

interface RatioRow {
  app: string;
  scenario: string;
  reference: string;
  requestsPerSecond: number;
  referenceRequestsPerSecond: number;
  cpuMsPerRequest: number;
  referenceCpuMsPerRequest: number;
  /** requests/s of the app over the reference's, measured one after the other. */
  ratio: number;
  /** The reference's CPU ms per request over the app's: the ratio if each server's CPU were its only limit. */
  ratioByCpu: number;
}

async function hammer(server: ServerProcess, path: string, token: string | undefined, seconds: number) {
  const cpu = server.cpuTimeMs();
  const result = await autocannon({
    url: server.baseUrl + path,
    connections: 32,
    duration: seconds,
    headers: token ? { authorization: `Bearer ${token}` } : {},
  });
  if (result.non2xx + result.errors > 0) throw new Error(`${server.name} ${path}: ${result.non2xx} non-2xx`);
  return {
    requestsPerSecond: Math.round(result.requests.total / result.duration),
    cpuMsPerRequest: (server.cpuTimeMs() - cpu) / result.requests.total,
  };
}

/** Hello and the single-order read against the plain server's, each pair measured back to back. */
async function measureRatios(
  bench: Bench,
  app: App,
  plain: ServerProcess,
  orderIds: number[],
): Promise<RatioRow[]> {
  const seconds = bench.options.ratioSeconds;
  const token = app.tokens.partner.get(BENCH_COMPANY_ID)!;
  let pick = 0;
  const pairs = [
    { scenario: 'hello: GET /health/live', path: '/health/live', plainPath: '/health', token: undefined },
    {
      scenario: 'GET /order/{id}',
      path: () => `/api/v2/order/${orderIds[pick++ % orderIds.length]}`,
      plainPath: '/api/v2/order/',
      token,
    },
  ];
  const rows: RatioRow[] = [];
  for (const pair of pairs) {
    // autocannon sends one path; the read's is one order, alternating per run so the cache is warm alike.
    const path = typeof pair.path === 'string' ? pair.path : pair.path();
    const plainPath = typeof pair.path === 'string' ? pair.plainPath : path;
    await hammer(app.server!, path, pair.token, 1);
    await hammer(plain, plainPath, pair.token, 1);
    const own = await hammer(app.server!, path, pair.token, seconds);
    const reference = await hammer(plain, plainPath, pair.token, seconds);
    const row: RatioRow = {
      app: app.name,
      scenario: pair.scenario,
      reference: `plain ${plainPath.replace(/\d+$/, '{id}')}`,
      requestsPerSecond: own.requestsPerSecond,
      referenceRequestsPerSecond: reference.requestsPerSecond,
      cpuMsPerRequest: Math.round(own.cpuMsPerRequest * 1000) / 1000,
      referenceCpuMsPerRequest: Math.round(reference.cpuMsPerRequest * 1000) / 1000,
      ratio: round2(own.requestsPerSecond / reference.requestsPerSecond),
      ratioByCpu: round2(reference.cpuMsPerRequest / own.cpuMsPerRequest),
    };
    rows.push(row);
    console.log(
      `${app.name.padEnd(9)} ${row.scenario.padEnd(24)} ${row.requestsPerSecond} req/s (${row.cpuMsPerRequest} CPU ms) vs ${row.reference} ${row.referenceRequestsPerSecond} req/s (${row.referenceCpuMsPerRequest} CPU ms): ratio ${row.ratio}, by CPU ${row.ratioByCpu}`,
    );
  }
  return rows;
}

async function insertToken(
  client: Client,
  role: 'partner' | 'logistics' | 'admin',
  company: number | null,
): Promise<string> {
  const secret = issueSecret();
  await client.query(
    `INSERT INTO api_tokens (token_hash, prefix, role, user_name, company_id) VALUES ($1, $2, $3, 'bench', $4)`,
    [hashSecret(secret.token), secret.prefix, role, company],
  );
  return secret.token;
}

/** Copies the seeded database for one checkout and gives it tokens. */
async function prepareApp(bench: Bench, name: string, dir: string, index: number): Promise<App> {
  const database = `${benchDatabaseName(bench.options.orders)}_lifecycle_${index}`;
  await bench.server.clone(benchDatabaseName(bench.options.orders), database);
  const admin = new Client({ connectionString: bench.server.urlOf(database) });
  await admin.connect();
  try {
    const partner = new Map<number, string>();
    for (let company = 1; company <= PLACING_COMPANIES; company += 1)
      partner.set(company, await insertToken(admin, 'partner', company));
    const tokens = {
      partner,
      logistics: await insertToken(admin, 'logistics', null),
      admin: await insertToken(admin, 'admin', null),
    };
    await admin.query(
      `DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '${OBSERVER}') THEN CREATE ROLE ${OBSERVER} LOGIN SUPERUSER; END IF; END $$`,
    );
    return {
      name,
      dir,
      database,
      port: BASE_PORT + 10 * index,
      tokens,
      eventsPerLifecycle: 0,
      firstEventId: '0',
      eventsDrained: 0,
    };
  } finally {
    await admin.end();
  }
}

async function startApp(bench: Bench, app: App, profile: boolean): Promise<void> {
  const env = {
    ...appEnvironment(bench.server.urlOf(app.database), BENCH_DEVICE_CREDENTIALS_KEY),
    ADMIN_RATE_LIMIT_PER_MINUTE: '1000000000',
    WEBHOOK_ALLOW_PRIVATE: 'true',
    METRICS_PORT: String(app.port + 1),
    ...Object.fromEntries(
      PASSED_THROUGH.filter((name) => process.env[name]).map((name) => [name, process.env[name]!]),
    ),
  };
  const profiling = profile ? ['--cpu-prof', `--cpu-prof-dir=${profileDir(app)}`] : [];
  app.server = await startServer(
    app.name,
    [...profiling, 'dist/main.js'],
    app.port,
    env,
    '/health/ready',
    app.dir,
  );
  app.call = client(app.server.baseUrl);
}

const profileDir = (app: App) => join(RESULTS_DIR, 'profiles', `lifecycle-${app.name}`);

/** Every company gets one endpoint on the receiver, through the admin API as an operator would add it. */
async function registerEndpoints(bench: Bench, app: App): Promise<void> {
  const companies = Array.from({ length: bench.options.companies }, (_, index) => index + 1);
  await inParallel(companies, 8, async (company) => {
    await expect(
      app.call!('POST', '/api/v2/admin/webhooks', app.tokens.admin, {
        company_id: company,
        url: bench.receiver.urlFor(app.name),
      }),
      [201],
      'endpoint',
    );
  });
}

/** min–max of each figure over the rounds, per app and concurrency: the spread of the repeated runs. */
function spread(rows: LifecycleRow[]) {
  const groups = new Map<string, LifecycleRow[]>();
  for (const row of rows) {
    const key = `${row.app}|${row.concurrency}`;
    groups.set(key, [...(groups.get(key) ?? []), row]);
  }
  const range = (values: number[]) => {
    const low = Math.min(...values);
    const high = Math.max(...values);
    return low === high ? String(low) : `${low}–${high}`;
  };
  return [...groups.values()].map((group) => ({
    app: group[0].app,
    concurrency: group[0].concurrency,
    lifecyclesPerSecond: range(group.map((row) => row.lifecyclesPerSecond)),
    service: range(group.map((row) => row.cpuMsPerLifecycle.service)),
    postgres: range(group.map((row) => row.cpuMsPerLifecycle.postgres)),
    generator: range(group.map((row) => row.cpuMsPerLifecycle.generator)),
    peakRssMb: range(group.map((row) => row.peakRssMb)),
  }));
}

function markdown(
  rows: LifecycleRow[],
  steps: StepRow[],
  ratios: RatioRow[],
  layers: ProfiledLayers[],
): string {
  const lines = [
    '| checkout | concurrency | lifecycles/s | CPU ms per lifecycle: service | PostgreSQL | load generator | peak RSS MB |',
    '|---|---:|---:|---:|---:|---:|---:|',
    ...spread(rows).map(
      (row) =>
        `| ${row.app} | ${row.concurrency} | ${row.lifecyclesPerSecond} | ${row.service} | ${row.postgres} | ${row.generator} | ${row.peakRssMb} |`,
    ),
  ];
  if (steps.length > 0)
    lines.push(
      '',
      '| checkout | step | service CPU ms | PostgreSQL CPU ms | webhooks |',
      '|---|---|---:|---:|---:|',
      ...steps.map(
        (row) => `| ${row.app} | ${row.step} | ${row.serviceMs} | ${row.postgresMs} | ${row.webhooks} |`,
      ),
    );
  if (ratios.length > 0)
    lines.push(
      '',
      '| checkout | scenario | req/s | reference | its req/s | ratio | CPU ms/req | reference CPU ms/req | ratio by CPU |',
      '|---|---|---:|---|---:|---:|---:|---:|---:|',
      ...ratios.map(
        (row) =>
          `| ${row.app} | ${row.scenario} | ${row.requestsPerSecond} | ${row.reference} | ${row.referenceRequestsPerSecond} | ${row.ratio} | ${row.cpuMsPerRequest} | ${row.referenceCpuMsPerRequest} | ${row.ratioByCpu} |`,
      ),
    );
  for (const profile of layers)
    lines.push(
      '',
      `${profile.app}: service CPU by layer at concurrency 16 (--cpu-prof: each layer's share of the samples times the CPU measured per lifecycle, ${profile.serviceMs} ms)`,
      '',
      '| layer | ms per lifecycle | % |',
      '|---|---:|---:|',
      ...profile.layers.map(
        (layer) =>
          `| ${layer.layer} | ${round2((layer.percent * profile.serviceMs) / 100)} | ${layer.percent.toFixed(1)} |`,
      ),
    );
  return lines.join('\n');
}

async function main(): Promise<void> {
  const options = parseOptions();
  const server = await openBenchServer();
  const startedAt = new Date();
  const receiver = await startReceiver();
  const apps: App[] = [];
  const observers = new Map<string, Client>();
  try {
    if (!(await server.exists(benchDatabaseName(options.orders)))) {
      console.log(`Seeding ${benchDatabaseName(options.orders)} (${options.orders} orders)...`);
      await seedBenchDatabase({ orders: options.orders, companies: options.companies });
    }
    const bench: Bench = { options, server, observers, postmaster: 0, receiver };
    const checkouts = [
      { name: 'this', dir: ROOT },
      ...(options.baseline ? [{ name: 'baseline', dir: options.baseline }] : []),
    ];
    for (const [index, checkout] of checkouts.entries()) {
      const app = await prepareApp(bench, checkout.name, checkout.dir, index);
      const observerUrl = new URL(server.urlOf(app.database));
      observerUrl.username = OBSERVER;
      const observer = new Client({ connectionString: observerUrl.toString() });
      await observer.connect();
      bench.observers.set(app.name, observer);
      bench.postmaster = await postmasterOf(observer);
      await startApp(bench, app, false);
      await registerEndpoints(bench, app);
      const { rows: last } = await observer.query<{ id: string }>(
        'SELECT coalesce(max(id), 0) AS id FROM events',
      );
      app.firstEventId = last[0].id;
      // Warm-up: the pools fill, statements are prepared, the JIT has seen every route.
      const warm = await counted(bench, app, () => runLifecycles(app, 48, 16));
      app.eventsPerLifecycle = warm.events / 48;
      console.log(`${app.name}: ${app.dir}, ${app.eventsPerLifecycle} webhooks per lifecycle`);
      apps.push(app);
    }
    const rows: LifecycleRow[] = [];
    for (let round = 1; round <= options.rounds; round += 1)
      for (const concurrency of options.concurrency) {
        // Alternate which checkout goes first, so that neither always follows the other.
        const order = round % 2 === 1 ? apps : [...apps].reverse();
        for (const app of order) rows.push(await measureLifecycles(bench, app, concurrency, round));
      }
    const steps: StepRow[] = [];
    if (options.steps) for (const app of apps) steps.push(...(await measureSteps(bench, app, 64)));
    const ratios: RatioRow[] = [];
    if (options.ratios) {
      const orderIds = (
        await bench.observers
          .get(apps[0].name)!
          .query<{ id: number }>('SELECT id FROM orders WHERE company_id = $1 ORDER BY random() LIMIT 50', [
            BENCH_COMPANY_ID,
          ])
      ).rows.map((row) => row.id);
      const plain = await startServer(
        'plain',
        [require.resolve('tsx/cli'), 'bench/plain-server.ts'],
        BASE_PORT + 9,
        appEnvironment(server.urlOf(apps[0].database), BENCH_DEVICE_CREDENTIALS_KEY),
        '/health',
      );
      try {
        for (let round = 1; round <= options.rounds; round += 1)
          for (const app of apps) ratios.push(...(await measureRatios(bench, app, plain, orderIds)));
      } finally {
        await plain.stop();
      }
    }
    const layers: ProfiledLayers[] = [];
    if (options.cpuProf)
      for (const app of apps) {
        await app.server!.stop();
        await startApp(bench, app, true);
        await counted(bench, app, () => runLifecycles(app, 48, 16));
        const profiled = await measureLifecycles(bench, app, 16, 0);
        await app.server!.stop();
        const dir = profileDir(app);
        const newest = readdirSync(dir).sort().at(-1)!;
        layers.push({
          app: app.name,
          serviceMs: profiled.cpuMsPerLifecycle.service,
          ...profileLayers(join(dir, newest)),
        });
      }
    const report = {
      startedAt: startedAt.toISOString(),
      finishedAt: new Date().toISOString(),
      machine: { cpus: cpus().length, cpuModel: cpus()[0]?.model, node: process.version },
      options,
      checkouts: apps.map((app) => ({
        name: app.name,
        dir: app.dir,
        eventsPerLifecycle: app.eventsPerLifecycle,
      })),
      lifecycles: rows,
      spread: spread(rows),
      steps,
      ratios,
      layers: layers.map((profile) => ({
        ...profile,
        layers: profile.layers.map((layer) => ({
          ...layer,
          msPerLifecycle: round2((layer.percent * profile.serviceMs) / 100),
        })),
      })),
    };
    mkdirSync(RESULTS_DIR, { recursive: true });
    const file = join(RESULTS_DIR, `lifecycle-${startedAt.toISOString().replace(/[:.]/g, '-')}.json`);
    writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
    console.log(`\n${markdown(rows, steps, ratios, layers)}\n\nWrote ${file}`);
  } finally {
    for (const app of apps) await app.server?.stop();
    for (const observer of observers.values()) await observer.end();
    await receiver.stop();
    for (const app of apps) await server.drop(app.database).catch(() => undefined);
    await server.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
