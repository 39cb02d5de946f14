import { connect } from 'node:net';
import { parseArgs } from 'node:util';
import { orderBody } from '../test/harness/factories';
import { attach, type SoakTarget, startOwn } from './target';

/**
 * `npm run probe`: a bounded load of hostile requests (CONTRACT §2, hostile input) against a running instance
 * (`--url` with `--partner-token`) or one it starts itself, while a partner's normal reads go on beside it.
 * Reports, per family, how the requests were answered (status histogram) and the worst latency of the normal
 * requests sent meanwhile: hostile input must never cost a 5xx, and never stall anyone else.
 */

const USAGE = `npm run probe -- [--duration 20] [--concurrency 4] [--url http://127.0.0.1:3000 --partner-token roa_...]`;
const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);
/** The probe's own instance takes bodies for this long, so the slow-body family is answered within the run. */
const BODY_TIMEOUT_MS = 2_000;
const NORMAL_INTERVAL_MS = 100;
const REQUEST_TIMEOUT_MS = 40_000;

function options() {
  const { values } = parseArgs({
    options: {
      duration: { type: 'string', default: '20' },
      concurrency: { type: 'string', default: '4' },
      url: { type: 'string' },
      'partner-token': { type: 'string' },
    },
  });
  const number = (name: 'duration' | 'concurrency', max: number) => {
    const value = Number(values[name]);
    if (!Number.isInteger(value) || value < 1 || value > max)
      throw new Error(`--${name} must be an integer from 1 to ${max}.\n${USAGE}`);
    return value;
  };
  const url = values.url?.replace(/\/$/, '');
  if (url && !LOOPBACK.has(new URL(url).hostname))
    throw new Error(`--url must be a loopback address: the probe only loads this machine.\n${USAGE}`);
  if (url && !values['partner-token']) throw new Error(`--url needs --partner-token.\n${USAGE}`);
  return {
    durationSeconds: number('duration', 600),
    concurrency: number('concurrency', 32),
    url,
    partnerToken: values['partner-token'],
  };
}

interface Probe {
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
}

const EMOJI = '😀';

function unknownKeys(n: number): string {
  const keys = Array.from({ length: n }, (_, index) => `"_${index.toString(36)}":1`);
  return `{"partner_comment":"probe",${keys.join(',')}}`;
}

/** The hostile families, each a list of requests tried in turn; `{order}` is an order of the partner's. */
function families(target: SoakTarget, orderId: number): Record<string, Probe[]> {
  const comment = `/api/v2/order/${orderId}/comment`;
  const json = (body: unknown) => JSON.stringify(body);
  const deep = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
  return {
    'unknown keys (100,000)': [{ method: 'POST', path: comment, body: unknownKeys(100_000) }],
    'deep nesting (5,000 / 10,000)': [
      { method: 'POST', path: comment, body: `{"partner_comment":${deep(5_000)}}` },
      { method: 'POST', path: '/api/v2/order', body: deep(10_000) },
      { method: 'POST', path: comment, body: `{"partner_comment":"x","junk":${deep(5_000)}}` },
    ],
    encodings: [
      { 'content-type': 'application/json; charset=latin1' } as Record<string, string>,
      { 'content-type': 'application/json; charset=bogus' },
      { 'content-encoding': 'xyz' },
      { 'content-type': 'text/plain' },
    ].map((headers) => ({ method: 'POST', path: comment, headers, body: json({ partner_comment: 'x' }) })),
    'four-byte characters': [
      {
        method: 'POST',
        path: '/api/v2/order',
        body: json(
          orderBody(target.productId, {
            product_variation_id: target.variationId,
            login: EMOJI.repeat(255),
            password: EMOJI.repeat(255),
          }),
        ),
      },
      {
        method: 'POST',
        path: '/api/v2/order',
        body: json(
          orderBody(target.productId, { product_variation_id: target.variationId, login: EMOJI.repeat(256) }),
        ),
      },
      { method: 'POST', path: comment, body: json({ partner_comment: EMOJI.repeat(5_001) }) },
    ],
    'array-style query': [
      { method: 'GET', path: '/api/v2/order?order_id[]=1' },
      { method: 'GET', path: '/api/v2/order?state[]=PLACED' },
      { method: 'GET', path: '/api/v2/events?after[]=evt_1' },
      { method: 'GET', path: '/api/v2/product?page[]=1' },
    ],
    'oversized body': [
      { method: 'POST', path: comment, body: json({ partner_comment: 'x'.repeat(1_100_000) }) },
    ],
  };
}

async function send(target: SoakTarget, probe: Probe): Promise<number> {
  const response = await fetch(target.url + probe.path, {
    method: probe.method,
    headers: {
      authorization: `Bearer ${target.partnerToken}`,
      ...(probe.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...probe.headers,
    },
    body: probe.body,
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  }).catch(() => undefined);
  if (!response) return 0;
  await response.arrayBuffer();
  return response.status;
}

/** A POST whose body trickles in a byte every 500 ms: answered with the status line, or 0 when cut off. */
function slowBody(target: SoakTarget, orderId: number): Promise<number> {
  const { hostname, port } = new URL(target.url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    let answer = '';
    const trickle = setInterval(() => socket.write('x'), 500);
    const done = () => {
      clearInterval(trickle);
      socket.destroy();
      resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1] ?? 0));
    };
    socket.setTimeout(REQUEST_TIMEOUT_MS, done);
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString()));
    socket.on('close', done);
    socket.on('error', done);
    socket.write(
      `POST /api/v2/order/${orderId}/comment HTTP/1.1\r\nHost: ${hostname}\r\nAuthorization: Bearer ${target.partnerToken}\r\n` +
        'Content-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"partner_comment":"',
    );
  });
}

async function main(): Promise<void> {
  const opts = options();
  const target = opts.url
    ? await attach(opts.url, opts.partnerToken!)
    : await startOwn({ REQUEST_BODY_TIMEOUT_MS: String(BODY_TIMEOUT_MS) });
  try {
    const placed = await fetch(`${target.url}/api/v2/order`, {
      method: 'POST',
      headers: { authorization: `Bearer ${target.partnerToken}`, 'content-type': 'application/json' },
      body: JSON.stringify(orderBody(target.productId, { product_variation_id: target.variationId })),
    });
    if (placed.status !== 201) throw new Error(`Placing the probe's order answered ${placed.status}`);
    const orderId = Number(((await placed.json()) as { orders: { order_id: string }[] }).orders[0].order_id);
    const plan = families(target, orderId);
    const names = [...Object.keys(plan), 'slow body'];
    const histogram = new Map<string, Map<number, number>>(
      [...names, 'normal reads'].map((name) => [name, new Map()]),
    );
    const count = (family: string, status: number) => {
      const statuses = histogram.get(family)!;
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
    };
    const deadline = Date.now() + opts.durationSeconds * 1000;

    const normalLatencies: number[] = [];
    const normal = (async () => {
      while (Date.now() < deadline) {
        const started = performance.now();
        const status = await send(target, { method: 'GET', path: `/api/v2/order/${orderId}` });
        normalLatencies.push(performance.now() - started);
        count('normal reads', status);
        await new Promise((resolve) => setTimeout(resolve, NORMAL_INTERVAL_MS));
      }
    })();

    let turn = 0;
    const workers = Array.from({ length: opts.concurrency }, async () => {
      while (Date.now() < deadline) {
        const family = names[turn % names.length];
        const index = Math.floor(turn / names.length);
        turn += 1;
        if (family === 'slow body') {
          count(family, await slowBody(target, orderId));
        } else {
          const probes = plan[family];
          count(family, await send(target, probes[index % probes.length]));
        }
      }
    });
    await Promise.all([normal, ...workers]);

    const sorted = [...normalLatencies].sort((a, b) => a - b);
    const percentile = (p: number) =>
      sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
    console.log(
      `Probe: ${opts.durationSeconds} s, ${opts.concurrency} hostile clients, one normal read every ${NORMAL_INTERVAL_MS} ms`,
    );
    console.log('\n| family | requests | statuses |\n|---|---|---|');
    for (const [family, statuses] of histogram) {
      const total = [...statuses.values()].reduce((sum, n) => sum + n, 0);
      const spread = [...statuses.entries()]
        .sort(([a], [b]) => a - b)
        .map(([status, n]) => `${status || 'no answer'}: ${n}`);
      console.log(`| ${family} | ${total} | ${spread.join(', ')} |`);
    }
    console.log(
      `\nNormal reads meanwhile: ${sorted.length}, p50 ${percentile(50).toFixed(0)} ms, p99 ${percentile(99).toFixed(0)} ms, worst ${sorted[sorted.length - 1].toFixed(0)} ms`,
    );
    const serverErrors = [...histogram.values()]
      .flatMap((statuses) => [...statuses.keys()])
      .filter((status) => status >= 500 || status === 0);
    if (serverErrors.length > 0) {
      console.error(`Failure: ${serverErrors.length} kinds of 5xx or unanswered requests.`);
      process.exitCode = 1;
    }
  } finally {
    await target.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
