import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, writeFileSync } from 'node:fs';
import { request, type IncomingMessage } from 'node:http';
import { createInterface } from 'node:readline';
import { cpus, loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { Client } from 'pg';
import { hashSecret, issueSecret } from '../src/tokens/token-secret';
import { BENCH_DEVICE_CREDENTIALS_KEY, benchDatabaseName, openBenchServer } from './bench-database';
import { appEnvironment, type ServerProcess, startServer } from './processes';
import { BENCH_COMPANY_ID } from './seed';
import { percentile } from './samples';

/**
 * What exports cost everyone else on one instance (issue 31, item 8): other companies' `GET /order` latency,
 * sent at a fixed rate, first with nothing else running (idle), then while company 1 downloads two exports
 * at once (one CSV, one NDJSON, each started again as soon as it ends), read as fast as the bench can.
 * Several builds of the app can be compared in one run, alternating their order from round to round so that
 * the machine's drift falls on each alike:
 *
 *   npm run build && npx tsx bench/export-isolation.ts --orders 250000 --rounds 3 \
 *     --app before=/path/to/main/dist/main.js --app after=dist/main.js
 *
 * Company 1 of the 250k database holds 31,191 orders. Writes a JSON to bench/results/.
 */

const PORT = Number(process.env.BENCH_PORT ?? 4210);
const RESULTS_DIR = join(__dirname, 'results');
/** The other companies whose lists are read while company 1 exports: the next largest of the seed. */
const OTHER_COMPANIES = [2, 3, 4, 5];

interface Phase {
  requests: number;
  errors: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

interface Measurement {
  app: string;
  round: number;
  idle: Phase;
  exporting: Phase;
  /** exporting p99 / idle p99. */
  p99Ratio: number;
  /** Orders the two exports delivered per second while measured, both together. */
  exportOrdersPerSecond: number;
  /** Export starts refused (429) over the phase: a slot given back late. */
  exportsRefused: number;
  /** The app's CPU time over the exporting phase, per second of it (1000 = one core). */
  appCpuMsPerSecond: number;
  loadAverage: number[];
}

/** One GET, its latency in ms from the moment it was sent (-1 when it failed). */
function timedGet(url: string, token: string): Promise<number> {
  const started = performance.now();
  return new Promise((done) => {
    const call = request(url, { headers: { authorization: `Bearer ${token}` } }, (response) => {
      response.resume();
      response.on('end', () => done(response.statusCode === 200 ? performance.now() - started : -1));
    });
    call.on('error', () => done(-1));
    call.end();
  });
}

/**
 * Other companies' list, `rate` requests a second for `seconds`, each sent on schedule whatever the previous
 * ones are doing (an open loop: a slow answer delays no later request, so none of the wait goes unseen).
 */
async function otherCompanies(
  baseUrl: string,
  tokens: string[],
  rate: number,
  seconds: number,
): Promise<Phase> {
  const pending: Promise<number>[] = [];
  const started = performance.now();
  for (let index = 0; index < rate * seconds; index += 1) {
    const due = started + (index * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    pending.push(timedGet(`${baseUrl}/api/v2/order?per_page=25`, tokens[index % tokens.length]));
  }
  const latencies = await Promise.all(pending);
  const answered = latencies.filter((ms) => ms >= 0).sort((a, b) => a - b);
  const round = (ms: number) => Math.round(ms * 10) / 10;
  return {
    requests: latencies.length,
    errors: latencies.length - answered.length,
    p50Ms: round(percentile(answered, 0.5)),
    p99Ms: round(percentile(answered, 0.99)),
    maxMs: round(answered.at(-1) ?? NaN),
  };
}

/**
 * Downloads exports of `format` one after the other until killed, and prints how many orders (lines) it has
 * received every 200 ms; a refused start (429 while the slot of the one before is not back yet) is counted and
 * tried again 100 ms later. Run in a process of its own (`--download`), so that reading the files never delays
 * the bench's own measurements.
 */
async function download(baseUrl: string, token: string, format: string): Promise<never> {
  const counted = { orders: 0, refused: 0 };
  setInterval(() => process.stdout.write(`${JSON.stringify(counted)}\n`), 200);
  const downloadOnce = () =>
    new Promise<void>((done) => {
      const call = request(
        `${baseUrl}/api/v2/orders/export?format=${format}`,
        { headers: { authorization: `Bearer ${token}` } },
        (response: IncomingMessage) => {
          if (response.statusCode !== 200) counted.refused += 1;
          response.on('data', (chunk: Buffer) => {
            if (response.statusCode !== 200) return;
            for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) counted.orders += 1;
          });
          response.on('end', () => void sleep(response.statusCode === 200 ? 0 : 100).then(() => done()));
        },
      );
      call.on('error', () => done());
      call.end();
    });
  for (;;) await downloadOnce();
}

/** Company 1's exports, one CSV and one NDJSON, each in a process of its own (download above). */
function startExports(baseUrl: string, token: string) {
  const downloaders = (['csv', 'ndjson'] as const).map((format) => {
    const child = spawn(process.execPath, [...process.execArgv, __filename, '--download', format], {
      env: { ...process.env, BENCH_DOWNLOAD_URL: baseUrl, BENCH_DOWNLOAD_TOKEN: token },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const latest = { orders: 0, refused: 0 };
    createInterface({ input: child.stdout }).on('line', (line) => {
      Object.assign(latest, JSON.parse(line) as typeof latest);
    });
    return { child, latest };
  });
  const total = () =>
    downloaders.reduce(
      (sum, { latest }) => ({ orders: sum.orders + latest.orders, refused: sum.refused + latest.refused }),
      { orders: 0, refused: 0 },
    );
  return {
    total,
    stop: () =>
      Promise.all(
        downloaders.map(async ({ child }) => {
          child.kill();
          if (child.exitCode === null && child.signalCode === null) await once(child, 'exit');
        }),
      ),
  };
}

async function addTokens(url: string, companies: number[]): Promise<string[]> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    const tokens: string[] = [];
    for (const company of companies) {
      const secret = issueSecret();
      await client.query(
        `INSERT INTO api_tokens (token_hash, prefix, role, user_name, company_id) VALUES ($1, $2, 'partner', 'bench', $3)`,
        [hashSecret(secret.token), secret.prefix, company],
      );
      tokens.push(secret.token);
    }
    return tokens;
  } finally {
    await client.end();
  }
}

async function measure(
  server: ServerProcess,
  exporter: string,
  others: string[],
  rate: number,
  seconds: number,
): Promise<Omit<Measurement, 'app' | 'round'>> {
  // Warm up the routes and the caches, so the idle phase is of a server that has served.
  await otherCompanies(server.baseUrl, others, rate, 2);
  const idle = await otherCompanies(server.baseUrl, others, rate, seconds);
  const exports = startExports(server.baseUrl, exporter);
  // The downloaders start, and the first batch of each is read, before the phase starts.
  await sleep(2_000);
  const before = exports.total();
  const cpuBefore = server.cpuTimeMs();
  const started = performance.now();
  const exporting = await otherCompanies(server.baseUrl, others, rate, seconds);
  const elapsedSeconds = (performance.now() - started) / 1000;
  const cpuMs = server.cpuTimeMs() - cpuBefore;
  const after = exports.total();
  await exports.stop();
  return {
    idle,
    exporting,
    p99Ratio: Math.round((exporting.p99Ms / idle.p99Ms) * 100) / 100,
    exportOrdersPerSecond: Math.round((after.orders - before.orders) / elapsedSeconds),
    exportsRefused: after.refused - before.refused,
    appCpuMsPerSecond: Math.round(cpuMs / elapsedSeconds),
    loadAverage: loadavg().map((value) => Math.round(value * 100) / 100),
  };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      download: { type: 'string' },
      orders: { type: 'string', default: '250000' },
      rounds: { type: 'string', default: '3' },
      seconds: { type: 'string', default: '20' },
      rate: { type: 'string', default: '25' },
      app: { type: 'string', multiple: true, default: ['app=dist/main.js'] },
    },
  });
  if (values.download)
    return download(process.env.BENCH_DOWNLOAD_URL!, process.env.BENCH_DOWNLOAD_TOKEN!, values.download);
  const apps = values.app.map((entry) => {
    const [name, path] = entry.includes('=') ? entry.split('=', 2) : [entry, entry];
    return { name, path: resolve(path) };
  });
  const [size, rounds, seconds, rate] = [values.orders, values.rounds, values.seconds, values.rate].map(
    Number,
  );
  const bench = await openBenchServer();
  const source = benchDatabaseName(size);
  const copy = `${source}_isolation`;
  const results: Measurement[] = [];
  try {
    if (!(await bench.exists(source)))
      throw new Error(`${source} does not exist: npm run bench:seed -- --orders ${size} first.`);
    await bench.clone(source, copy);
    const url = bench.urlOf(copy);
    const [exporter, ...others] = await addTokens(url, [BENCH_COMPANY_ID, ...OTHER_COMPANIES]);
    for (let round = 1; round <= rounds; round += 1) {
      const order = round % 2 === 1 ? apps : [...apps].reverse();
      for (const app of order) {
        const server = await startServer(
          app.name,
          [app.path],
          PORT,
          {
            ...appEnvironment(url, BENCH_DEVICE_CREDENTIALS_KEY),
            // Other sessions on the machine may hold the default metrics port; both builds run without it.
            METRICS_PORT: '0',
            ...(process.env.EXPORTS_PER_INSTANCE
              ? { EXPORTS_PER_INSTANCE: process.env.EXPORTS_PER_INSTANCE }
              : {}),
          },
          '/health/ready',
        );
        try {
          const measured = {
            app: app.name,
            round,
            ...(await measure(server, exporter, others, rate, seconds)),
          };
          results.push(measured);
          const phase = (name: string, p: Phase) =>
            `${name} p50 ${p.p50Ms} p99 ${p.p99Ms} max ${p.maxMs} ms (${p.requests} requests, ${p.errors} errors)`;
          console.log(
            `round ${round} ${app.name.padEnd(8)} ${phase('idle', measured.idle)} | ${phase('exporting', measured.exporting)} | ` +
              `p99 ×${measured.p99Ratio}, exports ${measured.exportOrdersPerSecond} orders/s ` +
              `(${measured.exportsRefused} refused), ` +
              `app CPU ${measured.appCpuMsPerSecond} ms/s, load ${measured.loadAverage.join(' ')}`,
          );
        } finally {
          await server.stop();
        }
      }
    }
    mkdirSync(RESULTS_DIR, { recursive: true });
    const file = join(RESULTS_DIR, `export-isolation-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
    const machine = { cpus: cpus().length, cpuModel: cpus()[0]?.model, node: process.version };
    writeFileSync(
      file,
      `${JSON.stringify({ orders: size, rate, seconds, apps, machine, results }, null, 2)}\n`,
    );
    console.log(`Wrote ${file}`);
  } finally {
    await bench.drop(copy);
    await bench.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
