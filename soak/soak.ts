import autocannon from 'autocannon';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { orderBody } from '../test/harness/factories';
import { formatReport, LatencyWindows, memorySummary, type RssSample, type SoakReport } from './report';
import { attach, type SoakTarget, startOwn } from './target';

/**
 * `npm run soak`: a partner's mixed workload (place, get, update, comment, list orders, list products) for a
 * set time at a set rate, against a running instance (`--url` with `--partner-token`) or, by default, one it
 * starts itself. Reports errors by status, latency per time window (drift) and the server's RSS over time.
 */

const USAGE = `npm run soak -- [--duration 60] [--rate 50] [--connections 10] [--window 10]
                    [--url http://127.0.0.1:3000 --partner-token roa_... [--pid <server pid>]] [--out soak/results]`;
const LIMITS = { duration: 24 * 3600, rate: 5_000, connections: 200 };
const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);
const REQUEST_TIMEOUT_SECONDS = 10;
const RSS_SAMPLE_MS = 5_000;

function options() {
  const { values } = parseArgs({
    options: {
      duration: { type: 'string', default: '60' },
      rate: { type: 'string', default: '50' },
      connections: { type: 'string', default: '10' },
      window: { type: 'string', default: '10' },
      url: { type: 'string' },
      'partner-token': { type: 'string' },
      pid: { type: 'string' },
      out: { type: 'string', default: join(__dirname, 'results') },
    },
  });
  const number = (name: 'duration' | 'rate' | 'connections' | 'window', max: number) => {
    const value = Number(values[name]);
    if (!Number.isInteger(value) || value < 1 || value > max)
      throw new Error(`--${name} must be an integer from 1 to ${max}.\n${USAGE}`);
    return value;
  };
  const durationSeconds = number('duration', LIMITS.duration);
  const url = values.url?.replace(/\/$/, '');
  if (url && !LOOPBACK.has(new URL(url).hostname))
    throw new Error(`--url must be a loopback address: the soak only loads this machine.\n${USAGE}`);
  if (url && !values['partner-token']) throw new Error(`--url needs --partner-token.\n${USAGE}`);
  if (values.pid !== undefined && !existsSync(`/proc/${values.pid}/status`))
    throw new Error(`--pid ${values.pid}: no such process to read the RSS of.\n${USAGE}`);
  return {
    durationSeconds,
    rate: number('rate', LIMITS.rate),
    connections: number('connections', LIMITS.connections),
    windowSeconds: number('window', durationSeconds),
    url,
    partnerToken: values['partner-token'],
    pid: values.pid === undefined ? undefined : Number(values.pid),
    out: values.out,
  };
}

/** Resident set size of a process, in MB, from /proc/<pid>/status (Linux). */
function rssMb(pid: number): number {
  const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return Math.round(Number(kb) / 102.4) / 10;
}

interface Context {
  orderId?: number;
  [key: string]: unknown;
}
type Step = { name: string; method: 'GET' | 'POST'; path: (context: Context) => string; body?: () => object };

/** One connection's cycle; each later step acts on the order the connection placed last. */
function workload(target: SoakTarget, fallbackOrderId: number): Step[] {
  const order = (context: Context) => context.orderId ?? fallbackOrderId;
  let n = 0;
  return [
    {
      name: 'place',
      method: 'POST',
      path: () => '/api/v2/order',
      body: () => orderBody(target.productId, { product_variation_id: target.variationId ?? null }),
    },
    { name: 'get', method: 'GET', path: (context) => `/api/v2/order/${order(context)}` },
    {
      name: 'update',
      method: 'POST',
      path: (context) => `/api/v2/order/${order(context)}/update`,
      body: () => ({ city: `Soak city ${(n += 1)}` }),
    },
    {
      name: 'comment',
      method: 'POST',
      path: (context) => `/api/v2/order/${order(context)}/comment`,
      body: () => ({ partner_comment: `Soak comment ${(n += 1)}` }),
    },
    { name: 'list', method: 'GET', path: () => '/api/v2/order?per_page=25' },
    { name: 'products', method: 'GET', path: () => '/api/v2/product' },
  ];
}

async function placeFirstOrder(target: SoakTarget): Promise<number> {
  const response = await fetch(`${target.url}/api/v2/order`, {
    method: 'POST',
    headers: { authorization: `Bearer ${target.partnerToken}`, 'content-type': 'application/json' },
    body: JSON.stringify(orderBody(target.productId, { product_variation_id: target.variationId ?? null })),
  });
  if (response.status !== 201)
    throw new Error(`The first placement answered ${response.status}: ${await response.text()}`);
  return Number(((await response.json()) as { orders: { order_id: string }[] }).orders[0].order_id);
}

async function soak(): Promise<number> {
  const opts = options();
  const target = opts.url ? await attach(opts.url, opts.partnerToken!, opts.pid) : await startOwn();
  try {
    const fallbackOrderId = await placeFirstOrder(target);
    const statusesByRoute: SoakReport['statusesByRoute'] = {};
    const count = (route: string, status: string) => {
      const statuses = (statusesByRoute[route] ??= {});
      statuses[status] = (statuses[status] ?? 0) + 1;
    };
    const startedAt = Date.now();
    const windows = new LatencyWindows(startedAt, opts.windowSeconds);
    const samples: RssSample[] = [];
    const sample = () => {
      if (target.pid)
        samples.push({ seconds: Math.round((Date.now() - startedAt) / 1000), rssMb: rssMb(target.pid) });
    };
    sample();
    const sampler = setInterval(sample, RSS_SAMPLE_MS);
    let connectionErrors = 0;

    const load = {
      url: target.url,
      connections: opts.connections,
      duration: opts.durationSeconds,
      overallRate: opts.rate,
      timeout: REQUEST_TIMEOUT_SECONDS,
      headers: { authorization: `Bearer ${target.partnerToken}`, 'content-type': 'application/json' },
      requests: workload(target, fallbackOrderId).map((step) => ({
        method: step.method,
        setupRequest: (req: object, context: Context) => ({
          ...req,
          path: step.path(context),
          body: step.body ? JSON.stringify(step.body()) : undefined,
        }),
        onResponse: (status: number, body: string, context: Context) => {
          count(step.name, String(status));
          if (step.name === 'place' && status === 201)
            context.orderId = Number(
              (JSON.parse(body) as { orders: { order_id: string }[] }).orders[0].order_id,
            );
        },
      })),
    } as autocannon.Options;
    const result = await new Promise<autocannon.Result>((resolve, reject) => {
      const instance = autocannon(load, (error, finished) =>
        error ? reject(error as Error) : resolve(finished),
      );
      instance.on('response', (_client, _status, _bytes, responseTime) => windows.record(responseTime));
      instance.on('reqError', () => (connectionErrors += 1));
    });
    clearInterval(sampler);
    sample();

    const byStatus: Record<string, number> = {};
    for (const statuses of Object.values(statusesByRoute))
      for (const [status, n] of Object.entries(statuses))
        if (!status.startsWith('2')) byStatus[status] = (byStatus[status] ?? 0) + n;
    const nonSuccess = Object.values(byStatus).reduce((sum, n) => sum + n, 0);
    const { windows: windowStats, drift } = windows.summary(opts.durationSeconds);
    const report: SoakReport = {
      startedAt: new Date(startedAt).toISOString(),
      target: opts.url ?? `${target.url} (started by the soak)`,
      options: {
        durationSeconds: opts.durationSeconds,
        rate: opts.rate,
        connections: opts.connections,
        windowSeconds: opts.windowSeconds,
      },
      requests: result.requests.total,
      statusesByRoute,
      errors: {
        byStatus,
        connectionErrors,
        timeouts: result.timeouts,
        total: nonSuccess + connectionErrors + result.timeouts,
      },
      windows: windowStats,
      latencyDriftMs: drift,
      memory: memorySummary(samples, opts.windowSeconds),
    };
    mkdirSync(opts.out, { recursive: true });
    const file = join(opts.out, `soak-${report.startedAt.replace(/[:.]/g, '-')}.json`);
    writeFileSync(file, JSON.stringify(report, null, 2) + '\n');
    console.log(formatReport(report, file));
    return report.errors.total === 0 ? 0 : 1;
  } finally {
    await target.stop();
  }
}

soak().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(2);
  },
);
