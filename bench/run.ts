import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import {
  BENCH_DEVICE_CREDENTIALS_KEY,
  type BenchServer,
  benchDatabaseName,
  openBenchServer,
} from './bench-database';
import { appEnvironment, type ServerProcess, startServer } from './processes';
import { isHello, markdown, type Measurement, targets, withReferenceRatios } from './report';
import { allScenarios, filterScenarios, NO_SAMPLES, prepareSamples, type Scenario } from './scenarios';
import { seedBenchDatabase } from './seed';

/** Ports of the servers under test, on loopback: the app, the plain server, the bare NestJS app. */
const APP_PORT = Number(process.env.BENCH_PORT ?? 4100);
const PLAIN_PORT = APP_PORT + 1;
const BARE_PORT = APP_PORT + 2;
const RESULTS_DIR = join(__dirname, 'results');
/** What the caller may set for the app under test, to compare settings: `DATABASE_POOL_SIZE=20 npm run bench`. */
const PASSED_THROUGH = ['NODE_OPTIONS', 'DATABASE_POOL_SIZE', 'METRICS_PORT'];

interface Options {
  orders: number;
  smallOrders: number;
  companies: number;
  duration: number;
  connections: number;
  only?: RegExp;
  /** Run the app with --cpu-prof; the profile lands in bench/results/profiles when the app stops. */
  cpuProf: boolean;
}

async function measure(
  scenario: Scenario,
  server: ServerProcess,
  token: string,
  options: Options,
): Promise<Omit<Measurement, 'ratioToHello' | 'orders'>> {
  server.resetPeakRss();
  const cpuBefore = server.cpuTimeMs();
  const result = await autocannon({
    url: server.baseUrl,
    connections: options.connections,
    duration: options.duration,
    headers: {
      'content-type': 'application/json',
      ...(scenario.anonymous ? {} : { authorization: `Bearer ${token}` }),
    },
    requests: [
      {
        method: scenario.method,
        setupRequest: (request) => ({
          ...request,
          path: scenario.path(),
          body: scenario.body?.(),
          headers: { ...request.headers, ...scenario.headers?.() },
        }),
      },
    ],
  });
  return {
    scenario: scenario.name,
    target: scenario.target,
    method: scenario.method,
    requestsPerSecond: Math.round(result.requests.average),
    latencyP50Ms: result.latency.p50,
    latencyP99Ms: result.latency.p99,
    latencyAverageMs: result.latency.average,
    errors: result.errors,
    non2xx: result.non2xx,
    peakRssMb: server.peakRssMb(),
    cpuMsPerRequest:
      Math.round(((server.cpuTimeMs() - cpuBefore) / Math.max(1, result.requests.total)) * 1000) / 1000,
    loadAverage: loadavg().map((value) => Math.round(value * 100) / 100),
  };
}

/** Runs the scenarios against one seeded database: the app, and the plain server when a scenario needs it. */
async function runOn(
  bench: BenchServer,
  orders: number,
  scenarios: (samples: Awaited<ReturnType<typeof prepareSamples>>) => Scenario[],
  options: Options,
): Promise<Measurement[]> {
  const selected = (scenario: Scenario) =>
    isHello(scenario.name) || !options.only || options.only.test(scenario.name);
  // A run with writes works on its own copy of the seeded database, so writes never skew a later run's reads;
  // a run of reads only reads the seeded database itself (a copy of 10M orders takes minutes).
  const writes = scenarios(NO_SAMPLES).some((scenario) => scenario.method === 'POST' && selected(scenario));
  const copy = `${benchDatabaseName(orders)}_run`;
  if (writes) await bench.clone(benchDatabaseName(orders), copy);
  const url = bench.urlOf(writes ? copy : benchDatabaseName(orders));
  const samples = await prepareSamples(url);
  const chosen = scenarios(samples).filter(selected);
  const env = {
    ...appEnvironment(url, BENCH_DEVICE_CREDENTIALS_KEY),
    METRICS_PORT: String(APP_PORT + 3),
    ...Object.fromEntries(
      PASSED_THROUGH.filter((name) => process.env[name]).map((name) => [name, process.env[name]!]),
    ),
  };
  const servers: Partial<Record<Scenario['target'], ServerProcess>> = {
    app: await startServer(
      'app',
      [
        ...(options.cpuProf ? ['--cpu-prof', `--cpu-prof-dir=${join(RESULTS_DIR, 'profiles')}`] : []),
        'dist/main.js',
      ],
      APP_PORT,
      env,
      '/health/ready',
    ),
  };
  const tsx = require.resolve('tsx/cli');
  if (chosen.some((scenario) => scenario.target === 'plain'))
    servers.plain = await startServer('plain', [tsx, 'bench/plain-server.ts'], PLAIN_PORT, env, '/health');
  if (chosen.some((scenario) => scenario.target === 'bare'))
    servers.bare = await startServer('bare', [tsx, 'bench/bare-nest.ts'], BARE_PORT, env, '/health/live');
  try {
    const [hello, ...others] = chosen;
    const measured: Measurement[] = [];
    const record = (result: Omit<Measurement, 'orders' | 'ratioToHello'>, helloRps: number) => {
      measured.push({
        ...result,
        orders,
        ratioToHello: Math.round((result.requestsPerSecond / helloRps) * 1000) / 1000,
      });
      console.log(
        `${String(orders).padStart(8)}  ${result.scenario.padEnd(42)} ${String(result.requestsPerSecond).padStart(6)} req/s  p50 ${result.latencyP50Ms} ms  p99 ${result.latencyP99Ms} ms  errors ${result.errors + result.non2xx}  CPU ${result.cpuMsPerRequest} ms/req  peak RSS ${result.peakRssMb} MB  ratio ${measured.at(-1)!.ratioToHello}`,
      );
    };
    const helloRun = await measure(hello, servers.app!, samples.token, options);
    record(helloRun, helloRun.requestsPerSecond);
    for (const scenario of others) {
      // The machine is shared: each scenario's ratio is to a hello measured just before it.
      const reference = await measure(hello, servers.app!, samples.token, {
        ...options,
        duration: Math.max(3, Math.round(options.duration / 3)),
      });
      const result = await measure(scenario, servers[scenario.target]!, samples.token, options);
      record({ ...result, helloRequestsPerSecond: reference.requestsPerSecond }, reference.requestsPerSecond);
    }
    return measured;
  } finally {
    for (const server of Object.values(servers)) await server.stop();
    if (writes) await bench.drop(copy);
  }
}

async function ensureSeeded(bench: BenchServer, orders: number, companies: number): Promise<void> {
  if (await bench.exists(benchDatabaseName(orders))) return;
  console.log(`Seeding ${benchDatabaseName(orders)} (${orders} orders, ${companies} companies)...`);
  await seedBenchDatabase({ orders, companies });
}

function parseOptions(): Options {
  const { values } = parseArgs({
    options: {
      orders: { type: 'string', default: '1000000' },
      'small-orders': { type: 'string', default: '10000' },
      companies: { type: 'string', default: '500' },
      duration: { type: 'string', default: '10' },
      connections: { type: 'string', default: '32' },
      only: { type: 'string' },
      'cpu-prof': { type: 'boolean', default: false },
    },
  });
  return {
    orders: Number(values.orders),
    smallOrders: Number(values['small-orders']),
    companies: Number(values.companies),
    duration: Number(values.duration),
    connections: Number(values.connections),
    only: values.only ? new RegExp(values.only) : undefined,
    cpuProf: values['cpu-prof'],
  };
}

/** How each filter's cost (relative to hello, so machine noise cancels) grows from the small to the large set. */
function growth(rows: Measurement[], options: Options) {
  const at = (orders: number, scenario: string) =>
    rows.find((row) => row.orders === orders && row.scenario === scenario);
  return rows
    .filter((row) => row.orders === options.smallOrders && row.scenario.startsWith('GET /order'))
    .map((small) => {
      const large = at(options.orders, small.scenario);
      return (
        large && {
          scenario: small.scenario,
          costGrowth: Math.round((small.ratioToHello / large.ratioToHello) * 100) / 100,
        }
      );
    })
    .filter((row) => row !== undefined);
}

async function main(): Promise<void> {
  const options = parseOptions();
  const bench = await openBenchServer();
  const startedAt = new Date();
  try {
    await ensureSeeded(bench, options.orders, options.companies);
    await ensureSeeded(bench, options.smallOrders, options.companies);
    const large = await runOn(bench, options.orders, allScenarios, options);
    const small = await runOn(
      bench,
      options.smallOrders,
      (samples) => [
        allScenarios(samples)[0],
        ...allScenarios(samples).filter((scenario) => scenario.name === 'GET /order page 1'),
        ...filterScenarios(samples),
      ],
      options,
    );
    const measurements = withReferenceRatios([...large, ...small]);
    const met = targets(measurements.filter((row) => row.orders === options.orders));
    const report = {
      startedAt: startedAt.toISOString(),
      finishedAt: new Date().toISOString(),
      machine: {
        cpus: cpus().length,
        cpuModel: cpus()[0]?.model,
        memoryMb: Math.round(totalmem() / 2 ** 20),
        node: process.version,
      },
      options: { ...options, only: options.only?.source },
      measurements,
      targets: met,
      filterGrowth: growth(measurements, options),
    };
    mkdirSync(RESULTS_DIR, { recursive: true });
    const file = join(RESULTS_DIR, `bench-${startedAt.toISOString().replace(/[:.]/g, '-')}.json`);
    writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
    console.log(`\n${markdown(measurements, met)}`);
    console.log('\ncost growth from the small to the large database (1.0 = flat):');
    for (const row of report.filterGrowth) console.log(`  ${row.scenario.padEnd(42)} ${row.costGrowth}x`);
    console.log(`\nWrote ${file}`);
  } finally {
    await bench.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
