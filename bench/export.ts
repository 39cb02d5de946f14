import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Client } from 'pg';
import { BENCH_DEVICE_CREDENTIALS_KEY, benchDatabaseName, openBenchServer } from './bench-database';
import { appEnvironment, startServer } from './processes';
import { prepareSamples } from './scenarios';
import { BENCH_COMPANY_ID } from './seed';

/**
 * The export benchmark (issue 16, CONTRACT §4.10): company 1's orders at 1M (about 126k) downloaded whole from
 * GET /api/v2/orders/export, in CSV and NDJSON, one download at a time: orders per second, time to first
 * byte, and the server's peak resident set size against its idle one. Run with `npm run bench:export`.
 */

const PORT = Number(process.env.BENCH_PORT ?? 4200);
const RESULTS_DIR = join(__dirname, 'results');
const LF = 0x0a;

interface Download {
  format: 'csv' | 'ndjson';
  run: number;
  orders: number;
  bytes: number;
  seconds: number;
  ordersPerSecond: number;
  timeToFirstByteMs: number;
  idleRssMb: number;
  peakRssMb: number;
  aboveIdleMb: number;
  loadAverage: number[];
}

/** Downloads the whole file, counting its lines as they arrive, and keeps none of it. */
async function download(
  url: string,
  token: string,
): Promise<{ lines: number; bytes: number; ttfbMs: number; ms: number }> {
  const started = performance.now();
  const response = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
  if (response.status !== 200 || !response.body) throw new Error(`${url} answered ${response.status}`);
  let ttfbMs = 0;
  let lines = 0;
  let bytes = 0;
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    if (bytes === 0) ttfbMs = performance.now() - started;
    bytes += chunk.length;
    for (let at = chunk.indexOf(LF); at !== -1; at = chunk.indexOf(LF, at + 1)) lines += 1;
  }
  return { lines, bytes, ttfbMs, ms: performance.now() - started };
}

async function countOrders(url: string): Promise<number> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    const result = await client.query<{ count: number }>(
      'SELECT count(*)::int AS count FROM orders WHERE company_id = $1',
      [BENCH_COMPANY_ID],
    );
    return result.rows[0].count;
  } finally {
    await client.end();
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { orders: { type: 'string', default: '1000000' }, runs: { type: 'string', default: '3' } },
  });
  const size = Number(values.orders);
  const runs = Number(values.runs);
  const bench = await openBenchServer();
  const source = benchDatabaseName(size);
  const copy = `${source}_export`;
  try {
    if (!(await bench.exists(source)))
      throw new Error(`${source} does not exist: npm run bench:seed -- --orders ${size} first.`);
    // The token the bench issues is written to a copy, so the seeded database is never changed.
    await bench.clone(source, copy);
    const url = bench.urlOf(copy);
    const { token } = await prepareSamples(url);
    const expected = await countOrders(url);
    const server = await startServer(
      'app',
      ['dist/main.js'],
      PORT,
      {
        ...appEnvironment(url, BENCH_DEVICE_CREDENTIALS_KEY),
        ...(process.env.NODE_OPTIONS ? { NODE_OPTIONS: process.env.NODE_OPTIONS } : {}),
      },
      '/health/ready',
    );
    const downloads: Download[] = [];
    try {
      // Warm up the routes the export uses, so the idle reading is of a server that has served.
      await download(`${server.baseUrl}/api/v2/orders/export?format=csv&order_id=1`, token);
      await download(`${server.baseUrl}/api/v2/orders/export?format=ndjson&order_id=1`, token);
      for (const format of ['csv', 'ndjson'] as const) {
        for (let run = 1; run <= runs; run += 1) {
          server.resetPeakRss();
          const idleRssMb = server.peakRssMb();
          const result = await download(`${server.baseUrl}/api/v2/orders/export?format=${format}`, token);
          const orders = format === 'csv' ? result.lines - 1 : result.lines;
          if (orders !== expected) throw new Error(`${format}: ${orders} orders, expected ${expected}`);
          const peakRssMb = server.peakRssMb();
          const entry: Download = {
            format,
            run,
            orders,
            bytes: result.bytes,
            seconds: Math.round(result.ms) / 1000,
            ordersPerSecond: Math.round((orders / result.ms) * 1000),
            timeToFirstByteMs: Math.round(result.ttfbMs),
            idleRssMb,
            peakRssMb,
            aboveIdleMb: peakRssMb - idleRssMb,
            loadAverage: loadavg().map((value) => Math.round(value * 100) / 100),
          };
          downloads.push(entry);
          console.log(
            `${format.padEnd(6)} run ${run}: ${orders} orders, ${(result.bytes / 2 ** 20).toFixed(1)} MB in ${entry.seconds} s: ` +
              `${entry.ordersPerSecond} orders/s, first byte ${entry.timeToFirstByteMs} ms, ` +
              `RSS ${idleRssMb} → ${peakRssMb} MB (+${entry.aboveIdleMb}), load ${entry.loadAverage.join(' ')}`,
          );
        }
      }
    } finally {
      await server.stop();
    }
    mkdirSync(RESULTS_DIR, { recursive: true });
    const file = join(RESULTS_DIR, `export-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
    const machine = { cpus: cpus().length, cpuModel: cpus()[0]?.model, node: process.version };
    writeFileSync(file, `${JSON.stringify({ orders: size, expected, machine, downloads }, null, 2)}\n`);
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
