import { request as httpRequest } from 'node:http';
import type { Pool } from 'pg';
import request from 'supertest';
import { issueAdminToken } from './harness/cli';
import { eventually } from './harness/eventually';
import { Fixtures, orderBody, type Partner } from './harness/factories';
import { startService, type RunningService } from './harness/service';
import { TcpProxy } from './harness/tcp-proxy';
import { createTestDatabase } from './harness/test-database';

/**
 * Faults (CONTRACT §2, §8): the database going away, SIGTERM and SIGKILL under concurrent load. Every
 * request carries a generous bound, so a hanging request fails the spec instead of stalling it.
 */
const REQUEST_BOUND_MS = 10_000;
const CONCURRENCY = 30;
const UNAVAILABLE = { message: 'Service unavailable.' };
/** Enough for many concurrent requests: the rate limit is not what these specs exercise. */
const ENV = { RATE_LIMIT_PER_MINUTE: '100000' };

interface Answer {
  status: number;
  body: unknown;
}

/** The partner's mixed workload: a third placements, a third list pages, a third single orders. */
function mixedRequest(url: string, partner: Partner, productId: number, orderId: number, n: number) {
  const auth = `Bearer ${partner.token}`;
  const api = request(url);
  if (n % 3 === 0)
    return {
      expected: 201,
      test: api.post('/api/v2/order').set('Authorization', auth).send(orderBody(productId)),
    };
  if (n % 3 === 1)
    return { expected: 200, test: api.get('/api/v2/order?per_page=5').set('Authorization', auth) };
  return { expected: 200, test: api.get(`/api/v2/order/${orderId}`).set('Authorization', auth) };
}

/** Fires `count` mixed requests at once; resolves with each one's expected status and what it got. */
function burst(url: string, partner: Partner, productId: number, orderId: number, onAnswer = () => {}) {
  return Promise.all(
    Array.from({ length: CONCURRENCY }, async (_, n) => {
      const { expected, test } = mixedRequest(url, partner, productId, orderId, n);
      const response = await test.timeout(REQUEST_BOUND_MS);
      onAnswer();
      return { expected, status: response.status, body: response.body as unknown };
    }),
  );
}

/** Orders without their `order.placed` audit row, and `order.placed` rows without their order: none, ever. */
async function halfWrittenOrders(db: Pool): Promise<string[]> {
  const { rows } = await db.query<{ problem: string }>(`
    SELECT 'order ' || o.id || ' has no audit row' AS problem FROM orders o
     WHERE NOT EXISTS (SELECT 1 FROM audit_events a
                        WHERE a.action = 'order.placed' AND a.target_type = 'order' AND a.target_id = o.id::text)
    UNION ALL
    SELECT 'audit row ' || a.id || ' names no order' FROM audit_events a
     WHERE a.action = 'order.placed'
       AND NOT EXISTS (SELECT 1 FROM orders o WHERE o.id::text = a.target_id)`);
  return rows.map((row) => row.problem);
}

async function setUp(service: RunningService, databaseUrl: string) {
  return new Fixtures(service.url, await issueAdminToken(databaseUrl)).partnerWithOrder();
}

async function waitUntilReady(url: string): Promise<number> {
  let status = 0;
  for (let attempt = 0; attempt < 40 && status !== 200; attempt += 1) {
    status = (await request(url).get('/health/ready').timeout(REQUEST_BOUND_MS)).status;
    if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return status;
}

/** While the database is away: readiness is red, liveness stays green. */
async function expectReadinessRed(url: string): Promise<void> {
  await request(url).get('/health/ready').timeout(REQUEST_BOUND_MS).expect(503, UNAVAILABLE);
  await request(url).get('/health/live').timeout(REQUEST_BOUND_MS).expect(200);
}

/** Once it is back: ready again by itself, every request answered as usual, nothing half-written. */
async function expectRecovered(
  service: RunningService,
  partner: Partner,
  productId: number,
  orderId: number,
) {
  expect(await waitUntilReady(service.url)).toBe(200);
  const afterwards = await burst(service.url, partner, productId, orderId);
  expect(afterwards.map((answer) => answer.status)).toEqual(afterwards.map((answer) => answer.expected));
  expect(await halfWrittenOrders(service.db)).toEqual([]);
}

describe('the database going away mid-run', () => {
  it('answers every request, 503 once it is gone; readiness goes red; the service recovers by itself', async () => {
    const databaseUrl = await createTestDatabase();
    const { proxy, url } = await TcpProxy.for(databaseUrl);
    const service = await startService({ env: { ...ENV, DATABASE_URL: url } });
    try {
      const { partner, productId, orderId } = await setUp(service, databaseUrl);

      let firstAnswered: () => void = () => {};
      const firstAnswer = new Promise<void>((resolve) => (firstAnswered = resolve));
      const inFlight = burst(service.url, partner, productId, orderId, () => firstAnswered());
      await firstAnswer;
      await proxy.cut();
      for (const answer of await inFlight) expect([answer.expected, 503]).toContain(answer.status);

      const whileDown = await burst(service.url, partner, productId, orderId);
      expect(whileDown.map((answer) => [answer.status, answer.body])).toEqual(
        whileDown.map(() => [503, UNAVAILABLE]),
      );
      await expectReadinessRed(service.url);

      await proxy.open();
      await expectRecovered(service, partner, productId, orderId);
    } finally {
      await service.stop();
      await proxy.cut();
    }
  });
});

describe('the database away for some seconds with no traffic', () => {
  const OUTAGE_MS = 8_000;

  it('the dispatcher and the direct session (the NOTIFY listener) each log one warning without a stack when it starts, and one line when it ends', async () => {
    const databaseUrl = await createTestDatabase();
    const { proxy, url } = await TcpProxy.for(databaseUrl);
    const service = await startService({ env: { DATABASE_URL: url } });
    try {
      const before = service.logs().length;
      await proxy.cut();
      await new Promise((resolve) => setTimeout(resolve, OUTAGE_MS));
      const duringOutage = service.logs().slice(before);
      const warnings = duringOutage.filter((line) => line.level >= 40);
      expect(warnings.map((line) => [line.context, line.event])).toEqual(
        expect.arrayContaining([
          ['WebhookDispatcher', 'outage_started'],
          ['DirectSession', 'outage_started'],
        ]),
      );
      // One warning per background job the outage reached (the idempotency cleanup too, when it ran then).
      expect(warnings.every((line) => line.event === 'outage_started')).toBe(true);
      expect(new Set(warnings.map((line) => line.context)).size).toBe(warnings.length);
      expect(JSON.stringify(duringOutage)).not.toMatch(/"stack"|\\n\s+at /);

      await proxy.open();
      const ended = () => service.logs().filter((line) => line.event === 'outage_ended');
      await eventually(
        () => ended().length === 2,
        () => `not two "ended" lines after the database came back:\n${service.output()}`,
      );
      expect(
        ended()
          .map((line) => line.context)
          .sort(),
      ).toEqual(['DirectSession', 'WebhookDispatcher']);
      // No outage starts again once the database is back.
      expect(service.logs().filter((line) => line.event === 'outage_started')).toHaveLength(warnings.length);
    } finally {
      await service.stop();
      await proxy.cut();
    }
  });
});

describe('a stalled database link (packets dropped, nothing refused)', () => {
  it('answers every request 503 within a bound while stalled, and recovers by itself', async () => {
    const databaseUrl = await createTestDatabase();
    const { proxy, url } = await TcpProxy.for(databaseUrl);
    const service = await startService({
      env: { ...ENV, DATABASE_URL: url, DATABASE_STATEMENT_TIMEOUT_MS: '1000' },
    });
    try {
      const { partner, productId, orderId } = await setUp(service, databaseUrl);

      proxy.blackhole();
      const started = Date.now();
      const whileStalled = await burst(service.url, partner, productId, orderId);
      const slowest = Date.now() - started;
      expect(whileStalled.map((answer) => [answer.status, answer.body])).toEqual(
        whileStalled.map(() => [503, UNAVAILABLE]),
      );
      // T = 1 s: a pooled connection, an answer and a rollback each within T + 2 s.
      expect(slowest).toBeLessThan(REQUEST_BOUND_MS);
      await expectReadinessRed(service.url);

      proxy.restore();
      await expectRecovered(service, partner, productId, orderId);
    } finally {
      await service.stop();
      await proxy.cut();
    }
  });
});

describe('a burst on a freshly started instance with a healthy database', () => {
  it('queues 100 concurrent placements for its two pooled connections: none gets 503', async () => {
    const databaseUrl = await createTestDatabase();
    const preparing = await startService({ env: { ...ENV, DATABASE_URL: databaseUrl } });
    const { partner, productId } = await setUp(preparing, databaseUrl);
    await preparing.stop();
    const fresh = await startService({ env: { ...ENV, DATABASE_URL: databaseUrl, DATABASE_POOL_SIZE: '2' } });
    try {
      const statuses = await Promise.all(
        Array.from({ length: 100 }, async () => {
          const response = await request(fresh.url)
            .post('/api/v2/order')
            .set('Authorization', `Bearer ${partner.token}`)
            .send(orderBody(productId))
            .timeout(30_000);
          return response.status;
        }),
      );
      expect(statuses.filter((status) => status !== 201)).toEqual([]);
    } finally {
      await fresh.stop();
    }
  });
});

/**
 * A request held open at the server: its headers go out with `Expect: 100-continue`, and the server's
 * `100 Continue` proves it accepted the request; `send()` then writes the body.
 */
function heldRequest(port: number, method: string, path: string, token: string, body = '') {
  let onContinue: () => void = () => {};
  let onError: (error: Error) => void = () => {};
  const accepted = new Promise<void>((resolve, reject) => {
    onContinue = resolve;
    onError = reject;
  });
  const outgoing = httpRequest({
    host: '127.0.0.1',
    port,
    method,
    path,
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(body),
      connection: 'close',
      expect: '100-continue',
    },
    timeout: REQUEST_BOUND_MS,
  });
  const answer = new Promise<Answer>((resolve, reject) => {
    outgoing.on('response', (incoming) => {
      let text = '';
      incoming.on('data', (chunk: Buffer) => (text += chunk.toString()));
      incoming.on('end', () => resolve({ status: incoming.statusCode ?? 0, body: JSON.parse(text) }));
    });
    outgoing.on('error', (error) => {
      onError(error);
      reject(error);
    });
  });
  outgoing.on('continue', onContinue);
  outgoing.on('timeout', () => outgoing.destroy(new Error(`${method} ${path}: no answer in time`)));
  return { accepted, answer, send: () => outgoing.end(body) };
}

async function until(condition: () => boolean): Promise<void> {
  for (let attempt = 0; attempt < 100 && !condition(); attempt += 1)
    await new Promise((resolve) => setTimeout(resolve, 50));
}

describe('SIGTERM under load', () => {
  it('finishes every request accepted before the signal, with no 5xx and no reset, then exits 0', async () => {
    const service = await startService({ env: ENV });
    const { partner, productId, orderId } = await setUp(service, service.databaseUrl!);
    const port = Number(new URL(service.url).port);
    const requests = Array.from({ length: CONCURRENCY }, (_, n) => {
      if (n % 3 === 0)
        return {
          expected: 201,
          held: heldRequest(
            port,
            'POST',
            '/api/v2/order',
            partner.token,
            JSON.stringify(orderBody(productId)),
          ),
        };
      const path = n % 3 === 1 ? '/api/v2/order?per_page=5' : `/api/v2/order/${orderId}`;
      return { expected: 200, held: heldRequest(port, 'GET', path, partner.token) };
    });
    await Promise.all(requests.map((entry) => entry.held.accepted));

    service.process.kill('SIGTERM');
    await until(() => service.logs().some((line) => line.event === 'shutdown'));
    for (const entry of requests) entry.held.send();
    const answers = await Promise.all(requests.map((entry) => entry.held.answer));

    expect(answers.map((answer) => answer.status)).toEqual(requests.map((entry) => entry.expected));
    const placedIds = answers
      .filter((answer) => answer.status === 201)
      .map((answer) => Number((answer.body as { orders: { order_id: string }[] }).orders[0].order_id));
    const { rows } = await service.db.query<{ id: number }>('SELECT id FROM orders WHERE id = ANY($1)', [
      placedIds,
    ]);
    expect(rows).toHaveLength(placedIds.length);
    expect(await halfWrittenOrders(service.db)).toEqual([]);
    expect(await service.stop()).toBe(0);
  });
});

describe('SIGKILL in the middle of many placements', () => {
  it('leaves no half-written order, and a restarted service serves every order that was written', async () => {
    const databaseUrl = await createTestDatabase();
    const service = await startService({ env: { ...ENV, DATABASE_URL: databaseUrl } });
    const { partner, productId } = await setUp(service, databaseUrl);
    let answered = 0;
    let enough: () => void = () => {};
    const enoughAnswered = new Promise<void>((resolve) => (enough = resolve));
    const placements = Array.from({ length: CONCURRENCY * 3 }, async () => {
      try {
        const response = await request(service.url)
          .post('/api/v2/order')
          .set('Authorization', `Bearer ${partner.token}`)
          .send(orderBody(productId))
          .timeout(REQUEST_BOUND_MS);
        answered += 1;
        if (answered === CONCURRENCY) enough();
        return response.status === 201 ? Number(response.body.orders[0].order_id) : undefined;
      } catch {
        return undefined;
      }
    });
    await enoughAnswered;
    service.process.kill('SIGKILL');
    const confirmed = (await Promise.all(placements)).filter((id): id is number => id !== undefined);

    const db = service.db;
    expect(await halfWrittenOrders(db)).toEqual([]);
    const { rows } = await db.query<{ id: number }>('SELECT id FROM orders ORDER BY id');
    const stored = rows.map((row) => row.id);
    expect(stored).toEqual(expect.arrayContaining(confirmed));
    await service.stop();

    const restarted = await startService({ env: { ...ENV, DATABASE_URL: databaseUrl } });
    try {
      for (const id of stored) {
        const response = await request(restarted.url)
          .get(`/api/v2/order/${id}`)
          .set('Authorization', `Bearer ${partner.token}`)
          .expect(200);
        expect(response.body.order_id).toBe(id);
      }
    } finally {
      await restarted.stop();
    }
  });
});
