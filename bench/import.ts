import { once } from 'node:events';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Client } from 'pg';
import { hashSecret, issueSecret } from '../src/tokens/token-secret';
import { BENCH_DEVICE_CREDENTIALS_KEY, openBenchServer } from './bench-database';
import { appEnvironment, startServer } from './processes';
import { orderBody, percentile } from './samples';

/**
 * The bulk import, measured (issue 34, CONTRACT §4.11; `npm run bench:import -- --lines 100000`): one company
 * uploads an NDJSON file of `--lines` orders with a webhook endpoint registered (a receiver on loopback that
 * answers 200 at once), so every order.placed is delivered too. Reports the upload's time, the orders placed per
 * second from the upload's start to the import's end, the webhook deliveries that arrived, the app's peak
 * resident set size against its idle one, and another company's GET /order/{id} latency (p50, p99; `--readers`
 * clients reading `--rate` orders a second together) for `--window` seconds without an import, then during it. DATABASE_URL names a
 * server the bench may create `bench_import` on (unset: the bench's embedded PostgreSQL).
 */

const PORT = Number(process.env.BENCH_PORT ?? 4720);
const DATABASE = 'bench_import';
const RESULTS_DIR = join(__dirname, 'results');

const { values } = parseArgs({
  options: {
    lines: { type: 'string', default: '100000' },
    readers: { type: 'string', default: '4' },
    rate: { type: 'string', default: '100' },
    window: { type: 'string', default: '10' },
  },
});
const LINES = Number(values.lines);
const READERS = Number(values.readers);
/** Reads per second, all readers together: a steady load whose latency is measured, not a flood. */
const READ_RATE = Number(values.rate);
const WINDOW_S = Number(values.window);

const round = (value: number) => Math.round(value * 10) / 10;

async function main(): Promise<void> {
  let delivered = 0;
  const receiver = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      delivered += 1;
      response.writeHead(200).end();
    });
  });
  receiver.listen(0, '127.0.0.1');
  await once(receiver, 'listening');
  const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;

  const server = await openBenchServer();
  await server.recreate(DATABASE);
  const url = server.urlOf(DATABASE);
  const setup = new Client({ connectionString: url });
  await setup.connect();
  const secret = issueSecret();
  await setup.query(
    `INSERT INTO api_tokens (token_hash, prefix, role, user_name) VALUES ($1, $2, 'admin', 'bench')`,
    [hashSecret(secret.token), secret.prefix],
  );
  const app = await startServer(
    'app',
    ['dist/main.js'],
    PORT,
    {
      ...appEnvironment(url, BENCH_DEVICE_CREDENTIALS_KEY),
      METRICS_PORT: '0',
      WEBHOOK_ALLOW_PRIVATE: 'true',
      ADMIN_RATE_LIMIT_PER_MINUTE: '1000000000',
    },
    '/health/ready',
  );
  const call = async <T>(token: string, path: string, body: unknown): Promise<T> => {
    const response = await fetch(`${app.baseUrl}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (!response.ok) throw new Error(`POST ${path}: ${response.status} ${await response.text()}`);
    return (await response.json()) as T;
  };
  const partner = async (name: string, hook?: string) => {
    const { id } = await call<{ id: number }>(secret.token, '/api/v2/admin/companies', { name, site: 'AT' });
    if (hook) await call(secret.token, '/api/v2/admin/webhooks', { company_id: id, url: hook });
    const { token } = await call<{ token: string }>(secret.token, '/api/v2/admin/tokens', {
      role: 'partner',
      user_name: `${name}-partner`,
      company_id: id,
    });
    return token;
  };
  try {
    const { id: productId } = await call<{ id: number }>(secret.token, '/api/v2/admin/products', {
      name: 'Bench terminal',
      variations: [],
    });
    const importer = await partner('importer', receiverUrl);
    const reader = await partner('reader');
    const readable: string[] = [];
    for (let n = 0; n < 50; n += 1) {
      const placed = await call<{ orders: { order_id: string }[] }>(
        reader,
        '/api/v2/order',
        orderBody(productId, n, 'Import'),
      );
      readable.push(placed.orders[0].order_id);
    }

    /** Other partners' reads: READERS clients each reading one of its orders after another, until `done()`. */
    const reads = async (done: () => boolean): Promise<number[]> => {
      const latencies: number[] = [];
      await Promise.all(
        Array.from({ length: READERS }, async (_, client) => {
          const everyMs = (1000 * READERS) / READ_RATE;
          for (let n = client, next = performance.now(); !done(); n += READERS) {
            next += everyMs;
            const started = performance.now();
            const response = await fetch(`${app.baseUrl}/api/v2/order/${readable[n % readable.length]}`, {
              headers: { authorization: `Bearer ${reader}` },
            });
            await response.arrayBuffer();
            if (response.status !== 200) throw new Error(`GET /order answered ${response.status}`);
            latencies.push(performance.now() - started);
            await new Promise((resolve) => setTimeout(resolve, Math.max(0, next - performance.now())));
          }
        }),
      );
      return latencies.sort((a, b) => a - b);
    };
    const summary = (sorted: number[]) => ({
      requests: sorted.length,
      p50Ms: round(percentile(sorted, 0.5)),
      p99Ms: round(percentile(sorted, 0.99)),
    });

    const quietUntil = Date.now() + WINDOW_S * 1000;
    const quiet = summary(await reads(() => Date.now() > quietUntil));

    const file = Buffer.from(
      Array.from({ length: LINES }, (_, n) => JSON.stringify(orderBody(productId, n, 'Import')) + '\n').join(
        '',
      ),
    );
    const deliveredBefore = delivered;
    app.resetPeakRss();
    const idleRssMb = app.peakRssMb();
    const started = performance.now();
    const uploaded = await fetch(`${app.baseUrl}/api/v2/orders/imports`, {
      method: 'POST',
      headers: { authorization: `Bearer ${importer}`, 'content-type': 'application/x-ndjson' },
      body: file,
    });
    if (uploaded.status !== 202) throw new Error(`upload: ${uploaded.status} ${await uploaded.text()}`);
    const uploadSeconds = (performance.now() - started) / 1000;
    const { id } = (await uploaded.json()) as { id: number };
    let state: { state: string; placed: number; failed: number } = { state: 'queued', placed: 0, failed: 0 };
    const poll = (async () => {
      while (state.state === 'queued' || state.state === 'running') {
        await new Promise((resolve) => setTimeout(resolve, 250));
        const response = await fetch(`${app.baseUrl}/api/v2/orders/imports/${id}`, {
          headers: { authorization: `Bearer ${importer}` },
        });
        state = (await response.json()) as typeof state;
      }
    })();
    const duringImport = summary(await reads(() => state.state !== 'queued' && state.state !== 'running'));
    await poll;
    const seconds = (performance.now() - started) / 1000;
    const deliveredAtEnd = delivered - deliveredBefore;
    const deadline = Date.now() + 60_000;
    while (delivered - deliveredBefore < LINES + 1 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    const result = {
      at: new Date().toISOString(),
      lines: LINES,
      fileMb: round(file.length / 1024 / 1024),
      state: state.state,
      placed: state.placed,
      failed: state.failed,
      uploadSeconds: round(uploadSeconds),
      seconds: round(seconds),
      ordersPerSecond: Math.round(state.placed / seconds),
      webhooksDeliveredByTheEnd: deliveredAtEnd,
      webhooksDeliveredWithin60sMore: delivered - deliveredBefore,
      idleRssMb,
      peakRssMb: app.peakRssMb(),
      otherPartnersGetOrder: { withoutImport: quiet, duringImport },
      loadAverage: loadavg().map(round),
    };
    console.log(JSON.stringify(result, null, 2));
    mkdirSync(RESULTS_DIR, { recursive: true });
    writeFileSync(join(RESULTS_DIR, `import-${Date.now()}.json`), JSON.stringify(result, null, 2));
  } finally {
    await app.stop();
    await setup.end();
    await server.drop(DATABASE);
    await server.stop();
    receiver.close();
  }
}

void main();
