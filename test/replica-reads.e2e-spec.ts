import request from 'supertest';
import { findFreePort } from '../src/platform/database/free-port';
import { issueAdminToken, startApp, type TestApp } from './harness/app';
import { asText } from './harness/as-text';
import { eventually } from './harness/eventually';
import { Fixtures, orderBody, type Partner } from './harness/factories';
import { createTestDatabase } from './harness/test-database';

interface Page<Item> {
  data: Item[];
}

/** The order ids of a list page. */
const orderIds = (body: unknown): number[] =>
  (body as Page<{ order_id: number }>).data.map((order) => order.order_id);

/**
 * DATABASE_REPLICA_URL without a streaming replica (test/system/topology-replica.system-spec.ts has one): a "replica"
 * that is the primary itself has replayed everything, so it shows which reads are sent to a replica and how
 * they are counted; one that does not answer shows that no request fails for it. And every write a replica
 * read of the company could show records the company's write position.
 */

async function scrape(port: number): Promise<string> {
  const response = await fetch(`http://127.0.0.1:${port}/metrics`, { signal: AbortSignal.timeout(10_000) });
  expect(response.status).toBe(200);
  return response.text();
}

/** db_reads_total{target, reason}; 0 when absent. */
async function reads(port: number, target: string, reason: string): Promise<number> {
  const line = (await scrape(port))
    .split('\n')
    .find((row) => row.startsWith(`db_reads_total{target="${target}",reason="${reason}"} `));
  return line ? Number(line.split(' ')[1]) : 0;
}

/**
 * The reads CONTRACT §9 lets a replica answer, each checked for what the partner (or admin) sees; resolves with
 * how many were made.
 */
async function replicaReads(
  service: TestApp,
  admin: string,
  partner: Partner,
  orderId: number,
): Promise<number> {
  const auth = { Authorization: `Bearer ${partner.token}` };
  const one = await request(service.url).get(`/api/v2/order/${orderId}`).set(auth).expect(200);
  expect(one.body.order_id).toBe(orderId);
  const list = await request(service.url).get('/api/v2/orders').set(auth).expect(200);
  expect(orderIds(list.body)).toContain(orderId);
  const exported = await request(service.url)
    .get('/api/v2/orders/export?format=csv')
    .set(auth)
    .buffer(true)
    .parse(asText)
    .expect(200);
  expect(exported.text).toContain(String(orderId));
  // The feed holds back events while any older transaction runs on the server (other specs' too): asked again.
  let feedReads = 0;
  await eventually(
    async () => {
      feedReads += 1;
      const feed = await request(service.url).get('/api/v2/events').set(auth).expect(200);
      return (feed.body as Page<{ type: string }>).data.some((event) => event.type === 'order.placed');
    },
    () => 'the feed does not show the placement',
  );
  const audit = await request(service.url)
    .get(`/api/v2/admin/audit-events?company_id=${partner.companyId}`)
    .set('Authorization', `Bearer ${admin}`)
    .expect(200);
  expect((audit.body as Page<{ action: string }>).data.map((event) => event.action)).toContain(
    'order.placed',
  );
  return 4 + feedReads;
}

/** A service that reads from a replica, and what its specs use. */
interface ReplicaSetUp {
  service: TestApp;
  /** Where the service serves its metrics (db_reads_total). */
  metricsPort: number;
  admin: string;
  fixtures: Fixtures;
}

/**
 * A service on a database of its own with DATABASE_REPLICA_URL set to `replicaOf(its DATABASE_URL)`, its
 * metrics on a free port and no dispatcher, with an admin token and the fixtures on it.
 */
async function startWithReplica(
  replicaOf: (databaseUrl: string) => string,
  env: Record<string, string> = {},
): Promise<ReplicaSetUp> {
  const databaseUrl = await createTestDatabase();
  const metricsPort = await findFreePort();
  const service = await startApp({
    env: {
      DATABASE_URL: databaseUrl,
      DATABASE_REPLICA_URL: replicaOf(databaseUrl),
      METRICS_PORT: String(metricsPort),
      WEBHOOK_DISPATCHER: 'false',
      ...env,
    },
  });
  const admin = await issueAdminToken(service);
  return { service, metricsPort, admin, fixtures: new Fixtures(service.url, admin) };
}

describe('read replicas (DATABASE_REPLICA_URL): routing, fallback and write positions', () => {
  describe('a replica that has everything (the primary itself)', () => {
    let service: TestApp;
    let metricsPort: number;
    let admin: string;
    let fixtures: Fixtures;

    beforeAll(async () => {
      ({ service, metricsPort, admin, fixtures } = await startWithReplica(
        (databaseUrl) => `${databaseUrl}, ${databaseUrl}`,
        { WEBHOOK_ALLOW_PRIVATE: 'true' },
      ));
    });

    afterAll(() => service?.stop());

    it('answers the order, the lists, the export, the feed and the audit list from the replica, and counts them', async () => {
      const { partner, orderId } = await fixtures.partnerWithOrder();
      const before = await reads(metricsPort, 'replica', 'caught_up');
      const made = await replicaReads(service, admin, partner, orderId);
      expect((await reads(metricsPort, 'replica', 'caught_up')) - before).toBe(made);
      expect(await reads(metricsPort, 'primary', 'replica_behind')).toBe(0);
      expect(await reads(metricsPort, 'primary', 'replica_unavailable')).toBe(0);
    });

    it('sends no other read to a replica: validation, token look-ups and writes stay on the primary', async () => {
      const partner = await fixtures.partner();
      const product = await fixtures.product();
      const before = await reads(metricsPort, 'replica', 'caught_up');
      const placed = await request(service.url)
        .post('/api/v2/order')
        .set('Authorization', `Bearer ${partner.token}`)
        .send(orderBody(product.id))
        .expect(201);
      const id = Number(placed.body.orders[0].order_id);
      await request(service.url)
        .post(`/api/v2/order/${id}/comment`)
        .set('Authorization', `Bearer ${partner.token}`)
        .send({ partner_comment: 'Ring twice' })
        .expect(200);
      await request(service.url)
        .post(`/api/v2/order/${id}/cancel`)
        .set('Authorization', `Bearer ${partner.token}`)
        .expect(200);
      expect(await reads(metricsPort, 'replica', 'caught_up')).toBe(before);
    });

    it('records the company’s write position after each write a replica read of the company could show', async () => {
      const partner = await fixtures.partner();
      const product = await fixtures.product();
      const logistics = await fixtures.logisticsToken();
      const position = async (): Promise<bigint> => {
        const { rows } = await service.db.query<{ position: string | null }>(
          `SELECT (lsn - '0/0'::pg_lsn)::text AS position FROM company_write_positions WHERE company_id = $1`,
          [partner.companyId],
        );
        return BigInt(rows[0]?.position ?? -1);
      };
      const moved = async (write: () => Promise<unknown>) => {
        const before = await position();
        await write();
        expect(await position()).toBeGreaterThan(before);
      };
      const partnerCall = (path: string, body: object = {}) =>
        request(service.url).post(path).set('Authorization', `Bearer ${partner.token}`).send(body);
      const adminCall = (method: 'post' | 'delete', path: string, body: object = {}) =>
        request(service.url)[method](path).set('Authorization', `Bearer ${admin}`).send(body);
      let id = 0;
      let testId = 0;
      await moved(async () => {
        const placed = await partnerCall('/api/v2/order', orderBody(product.id)).expect(201);
        id = Number(placed.body.orders[0].order_id);
      });
      await moved(async () => {
        const placed = await partnerCall('/api/v2/order', orderBody(product.id, { test: true })).expect(201);
        testId = Number(placed.body.orders[0].order_id);
      });
      await moved(() => partnerCall(`/api/v2/order/${id}/update`, { first_name: 'Berta' }).expect(200));
      await moved(() =>
        partnerCall(`/api/v2/order/${id}/comment`, { partner_comment: 'Ring twice' }).expect(200),
      );
      await moved(() =>
        request(service.url)
          .post(`/api/v2/logistics/orders/${id}/sent`)
          .set('Authorization', `Bearer ${logistics}`)
          .expect(200),
      );
      await moved(() =>
        request(service.url)
          .put(`/api/v2/logistics/orders/${id}/trackings/PKG-1`)
          .set('Authorization', `Bearer ${logistics}`)
          .send({})
          .expect(201),
      );
      await moved(() => partnerCall(`/api/v2/order/${testId}/simulate`, { to: 'DELIVERED' }).expect(200));
      await moved(() => partnerCall(`/api/v2/order/${testId}/simulate`, { to: 'COMPLETED' }).expect(200));
      let tokenId = 0;
      await moved(async () => {
        const issued = await adminCall('post', '/api/v2/admin/tokens', {
          role: 'partner',
          user_name: 'replica-partner',
          company_id: partner.companyId,
        }).expect(201);
        tokenId = Number(issued.body.id);
      });
      await moved(() => adminCall('delete', `/api/v2/admin/tokens/${tokenId}`).expect(200));
      await moved(() =>
        adminCall('post', '/api/v2/admin/webhooks', {
          company_id: partner.companyId,
          url: 'http://127.0.0.1:9/hooks',
        }).expect(201),
      );
    });
  });

  describe('a replica that does not answer', () => {
    let service: TestApp;
    let metricsPort: number;
    let admin: string;
    let fixtures: Fixtures;

    beforeAll(async () => {
      const nobody = await findFreePort();
      ({ service, metricsPort, admin, fixtures } = await startWithReplica(
        () => `postgres://orders:replica-password-q7Zk@127.0.0.1:${nobody}/orders`,
      ));
    });

    afterAll(() => service?.stop());

    it('costs no request: the primary answers every read, counted as replica_unavailable, and the log says so once', async () => {
      const { partner, orderId } = await fixtures.partnerWithOrder();
      const made = await replicaReads(service, admin, partner, orderId);
      expect(await reads(metricsPort, 'primary', 'replica_unavailable')).toBe(made);
      expect(await reads(metricsPort, 'replica', 'caught_up')).toBe(0);
      const warnings = service.logs().filter((line) => String(line.msg).startsWith('A read replica failed'));
      expect(warnings).toHaveLength(1);
      expect(service.output()).not.toContain('replica-password-q7Zk');
    });
  });

  it('without DATABASE_REPLICA_URL every read is the primary’s, counted as no_replica', async () => {
    const metricsPort = await findFreePort();
    const service = await startApp({
      env: { METRICS_PORT: String(metricsPort), WEBHOOK_DISPATCHER: 'false' },
    });
    try {
      const admin = await issueAdminToken(service);
      const fixtures = new Fixtures(service.url, admin);
      const { partner, orderId } = await fixtures.partnerWithOrder();
      const made = await replicaReads(service, admin, partner, orderId);
      expect(await reads(metricsPort, 'primary', 'no_replica')).toBe(made);
    } finally {
      await service.stop();
    }
  });
});
