import request from 'supertest';
import { issueAdminToken, startApp, type TestApp } from './harness/app';
import { eventually } from './harness/eventually';
import { Fixtures, orderBody, type Partner } from './harness/factories';
import { CONCURRENCY, ENV, halfWrittenOrders, REQUEST_BOUND_MS } from './harness/faults';
import { TcpProxy } from './harness/tcp-proxy';
import { createTestDatabase } from './harness/test-database';

/**
 * Faults (CONTRACT §2, §8), in process: the database going away behind a TCP relay, a stalled link, a burst on
 * a fresh instance. SIGTERM and SIGKILL under load: test/system/faults.system-spec.ts.
 */
const UNAVAILABLE = { message: 'Service unavailable.' };

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

async function setUp(service: TestApp) {
  return new Fixtures(service.url, await issueAdminToken(service)).partnerWithOrder();
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
  service: TestApp,
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
    const service = await startApp({ env: { ...ENV, DATABASE_URL: url } });
    try {
      const { partner, productId, orderId } = await setUp(service);

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
    const service = await startApp({ env: { DATABASE_URL: url } });
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
    const service = await startApp({
      env: { ...ENV, DATABASE_URL: url, DATABASE_STATEMENT_TIMEOUT_MS: '1000' },
    });
    try {
      const { partner, productId, orderId } = await setUp(service);

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
    const preparing = await startApp({ env: { ...ENV, DATABASE_URL: databaseUrl } });
    const { partner, productId } = await setUp(preparing);
    await preparing.stop();
    const fresh = await startApp({ env: { ...ENV, DATABASE_URL: databaseUrl, DATABASE_POOL_SIZE: '2' } });
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
