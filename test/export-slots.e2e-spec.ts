import request from 'supertest';
import { fromDist, issueAdminToken, startApp, type TestApp } from './harness/app';
import { metricValue } from './harness/metrics';
import { asText } from './harness/as-text';
import { eventually } from './harness/eventually';
import { abortAndRestart, copyOrder, HELD_SLOTS, type StalledClient, stalledExport } from './harness/exports';
import { Fixtures, type Partner } from './harness/factories';
import { TcpProxy } from './harness/tcp-proxy';
import { createTestDatabase } from './harness/test-database';

/**
 * The export's slots (CONTRACT §4.10): a download that is aborted gives its slot back at once, and one instance
 * runs at most EXPORTS_PER_INSTANCE exports of all companies together. The apps run in this process.
 */

const as = (token: string) => ({ Authorization: `Bearer ${token}` });

/** Orders enough for many batches and more than socket buffers hold: an export that lasts. */
const MANY_ORDERS = 20_000;

const LIMITS = { RATE_LIMIT_PER_MINUTE: '100000', ADMIN_RATE_LIMIT_PER_MINUTE: '100000' };

/** A partner of a new company with MANY_ORDERS orders and one more. */
async function partnerWithManyOrders(app: TestApp, fixtures: Fixtures): Promise<Partner> {
  const { partner, orderId } = await fixtures.partnerWithOrder();
  await copyOrder(app.db, orderId, MANY_ORDERS);
  return partner;
}

/** A counter of the app's registry (0 while the series has not been touched). */
const counted = async (app: TestApp, name: string, labels: Record<string, string>) =>
  (await metricValue(app, name, labels)) ?? 0;

describe('export slots: given back at once, bounded per instance', () => {
  it('gives the slot back as soon as a download is aborted, with a read replica: 25 aborts after the first chunk, each started again at once, never a 429', async () => {
    // A read replica 100 ms away (the primary itself, through a slow relay: it has replayed everything, so every
    // batch is read there): a batch in flight when its client leaves is still being read when the client is back.
    const databaseUrl = await createTestDatabase();
    const { proxy, url: replicaUrl } = await TcpProxy.for(databaseUrl);
    proxy.latencyMs = 50;
    const app = await startApp({
      env: {
        ...LIMITS,
        DATABASE_URL: databaseUrl,
        DATABASE_REPLICA_URL: replicaUrl,
        EXPORT_STALL_TIMEOUT_MS: '120000',
      },
    });
    let stalled: StalledClient | undefined;
    try {
      const fixtures = new Fixtures(app.url, await issueAdminToken(app));
      const partner = await partnerWithManyOrders(app, fixtures);
      const sequence = await abortAndRestart(app, partner.token, 25);
      stalled = sequence.stalled;
      expect(sequence.refused).toEqual([]);
      expect(
        await counted(app, 'db_reads_total', { target: 'replica', reason: 'caught_up' }),
      ).toBeGreaterThan(25);
      sequence.stalled.socket.destroy();
      await eventually(
        async () => (await app.db.query(HELD_SLOTS)).rows[0].count === 0,
        () => 'The aborted exports still hold slots',
        10_000,
      );
      expect(app.logs().filter((line) => line.msg === 'Unhandled error')).toEqual([]);
    } finally {
      stalled?.socket.destroy();
      await app.stop();
      await proxy.cut();
    }
  });

  describe('EXPORTS_PER_INSTANCE', () => {
    let app: TestApp;
    let fixtures: Fixtures;

    beforeAll(async () => {
      app = await startApp({
        env: { ...LIMITS, EXPORTS_PER_INSTANCE: '2', EXPORT_STALL_TIMEOUT_MS: '20000' },
      });
      fixtures = new Fixtures(app.url, await issueAdminToken(app));
    });

    afterAll(() => app.stop());

    it('refuses an export with 429 and Retry-After while the instance runs as many as it may, whichever companies they are, and takes it once one ends', async () => {
      const stalling = await partnerWithManyOrders(app, fixtures);
      const { partner: other } = await fixtures.partnerWithOrder();
      const stalled = [
        await stalledExport(app.url, stalling.token),
        await stalledExport(app.url, stalling.token),
      ];
      await eventually(
        async () => (await app.db.query(HELD_SLOTS)).rows[0].count === 2,
        () => 'The stalled exports never took their slots',
        10_000,
      );
      const refusedBefore = await counted(app, 'export_refusals_total', { reason: 'instance_busy' });
      const refused = await request(app.url)
        .get('/api/v2/orders/export?format=csv')
        .set(as(other.token))
        .expect(429);
      expect(refused.body).toEqual({
        message: `Too many requests. See the API documentation at ${app.url}/api/docs.`,
      });
      expect(refused.headers['retry-after']).toBe('10');
      expect(refused.headers['x-ratelimit-remaining']).toBeDefined();
      expect(await counted(app, 'export_refusals_total', { reason: 'instance_busy' })).toBe(
        refusedBefore + 1,
      );
      // Only exports are bounded: the rest of the API, and HEAD, which runs no export, are served.
      await request(app.url).head('/api/v2/orders/export?format=csv').set(as(other.token)).expect(200);
      await request(app.url).get('/api/v2/orders').set(as(other.token)).expect(200);

      stalled[0].socket.destroy();
      await stalled[0].closed;
      await eventually(
        async () => (await app.db.query(HELD_SLOTS)).rows[0].count === 1,
        () => 'The export whose client went away still holds its slot',
        5_000,
      );
      const taken = await request(app.url)
        .get('/api/v2/orders/export?format=csv')
        .set(as(other.token))
        .buffer(true)
        .parse(asText)
        .expect(200);
      expect(taken.text.split('\r\n').filter(Boolean)).toHaveLength(2);
      stalled[1].socket.destroy();
    });

    it('refuses an EXPORTS_PER_INSTANCE that is not a whole number from 1 to 100', () => {
      const { validateEnvironment } = fromDist<typeof import('../src/platform/config/environment')>(
        'platform/config/environment',
      );
      for (const value of ['0', '101', 'four', '2.5'])
        expect(() => validateEnvironment({ EXPORTS_PER_INSTANCE: value })).toThrow(
          `Invalid environment variable EXPORTS_PER_INSTANCE: must be an integer from 1 to 100 (got "${value}").`,
        );
      expect(validateEnvironment({}).EXPORTS_PER_INSTANCE).toBe(4);
    });
  });
});
