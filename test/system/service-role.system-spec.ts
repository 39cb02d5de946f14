import { setTimeout as sleep } from 'node:timers/promises';
import { Pool } from 'pg';
import request from 'supertest';
import { issueAdminToken, runCli } from '../harness/cli';
import { eventually } from '../harness/eventually';
import { Fixtures, orderBody } from '../harness/factories';
import { type RunningService, startService, startServiceExpectingFailure } from '../harness/service';
import { createTestDatabase } from '../harness/test-database';
import { FAST_DISPATCH, startWebhookReceiver, type WebhookReceiver } from '../harness/webhook-receiver';

/** Long enough for a dispatcher polling every 20 ms (FAST_DISPATCH) to have sent a due delivery many times over. */
const QUIET_MS = 1_500;
const EXPIRED_KEY = 'expired-before-start';

/**
 * A database with one company holding an expired Idempotency-Key, written before any instance starts: an
 * instance that runs the periodic jobs deletes it at start, one that does not leaves it.
 */
async function databaseWithExpiredKey(): Promise<{ url: string; companyId: number; db: Pool }> {
  const url = await createTestDatabase();
  const company = await runCli(url, ['companies:create', '--name', 'Role Bistro', '--site', 'SK']);
  const companyId = Number(company.json?.id);
  const db = new Pool({ connectionString: url, max: 2 });
  await db.query(
    `INSERT INTO idempotency_keys (company_id, key, request_hash, response_status, response, expires_at)
     VALUES ($1, $2, repeat('0', 64), 201, '{}', now() - interval '1 hour')`,
    [companyId, EXPIRED_KEY],
  );
  return { url, companyId, db };
}

const expiredKeyLeft = async (db: Pool) =>
  (await db.query('SELECT 1 FROM idempotency_keys WHERE key = $1', [EXPIRED_KEY])).rowCount === 1;

const attemptsIn = async (db: Pool) =>
  Number((await db.query('SELECT count(*) AS n FROM webhook_attempts')).rows[0].n);

describe('SERVICE_ROLE: API instances and workers apart (CONTRACT §9)', () => {
  let receiver: WebhookReceiver;
  let shared: { url: string; companyId: number; db: Pool };
  let api: RunningService;
  let worker: RunningService | undefined;
  let admin: string;
  let partnerToken: string;
  let orderId: number;

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    shared = await databaseWithExpiredKey();
    api = await startService({ env: { ...FAST_DISPATCH, SERVICE_ROLE: 'api', DATABASE_URL: shared.url } });
    admin = await issueAdminToken(shared.url);
  });

  afterAll(async () => {
    await worker?.stop();
    await api?.stop();
    await shared?.db.end();
    await receiver?.close();
  });

  it('an api instance serves the API, and never delivers a webhook nor runs the periodic jobs', async () => {
    const fixtures = new Fixtures(api.url, admin);
    partnerToken = (await fixtures.partnerOf(shared.companyId)).token;
    const product = await fixtures.product();
    await request(api.url)
      .post('/api/v2/admin/webhooks')
      .set('Authorization', `Bearer ${admin}`)
      .send({ company_id: shared.companyId, url: `${receiver.url}/api-role` })
      .expect(201);
    const placed = await request(api.url)
      .post('/api/v2/order')
      .set('Authorization', `Bearer ${partnerToken}`)
      .send(orderBody(product.id))
      .expect(201);
    orderId = Number(placed.body.orders[0].order_id);
    await request(api.url).get('/api/docs-json').expect(200);

    await sleep(QUIET_MS);
    expect(receiver.received).toEqual([]);
    expect(await attemptsIn(shared.db)).toBe(0);
    expect(await expiredKeyLeft(shared.db)).toBe(true);
    expect(api.logs().find((line) => line.event === 'listening')).toMatchObject({ role: 'api' });
  });

  it('a worker delivers what the api instance wrote and runs the periodic jobs', async () => {
    worker = await startService({
      env: { ...FAST_DISPATCH, SERVICE_ROLE: 'worker', DATABASE_URL: shared.url },
    });
    await receiver.waitFor((received) => received.length === 1, 10_000);
    const event = JSON.parse(receiver.received[0].body) as { type: string; data: { order_id: number } };
    expect([receiver.received[0].path, event.type, event.data.order_id]).toEqual([
      '/api-role',
      'order.placed',
      orderId,
    ]);
    await eventually(
      async () => !(await expiredKeyLeft(shared.db)),
      () => 'The worker did not delete the expired idempotency key',
      10_000,
    );
    expect(worker.logs().find((line) => line.event === 'listening')).toMatchObject({ role: 'worker' });
  });

  it('a worker serves /health/live and /health/ready (its jobs included), and no API route', async () => {
    await request(worker!.url).get('/health/live').expect(200);
    const ready = await request(worker!.url).get('/health/ready').expect(200);
    expect(ready.body.info).toMatchObject({
      database: { status: 'up' },
      migrations: { status: 'up' },
      jobs: { status: 'up' },
    });
    // With fetch, not supertest: the OpenAPI document is the API's, which a worker does not serve.
    const asPartner = { authorization: `Bearer ${partnerToken}` };
    const refused = [
      fetch(`${worker!.url}/api/v2/order/${orderId}`, { headers: asPartner }),
      fetch(`${worker!.url}/api/v2/order`, { method: 'POST', headers: asPartner, body: '{}' }),
      fetch(`${worker!.url}/api/docs-json`),
      fetch(`${worker!.url}/api/docs`),
      fetch(`${worker!.url}/`),
      fetch(`${worker!.url}/health/ready`, { method: 'POST' }),
    ];
    for (const response of await Promise.all(refused)) {
      expect([response.status, await response.json()]).toEqual([404, { message: 'Not found.' }]);
      expect(response.headers.get('x-request-id')).toEqual(expect.any(String));
    }
    expect((await request(api.url).get('/health/ready').expect(200)).body.info).not.toHaveProperty('jobs');
  });

  it('`all` (the default) serves the API, delivers and runs the periodic jobs in one instance', async () => {
    const own = await databaseWithExpiredKey();
    const all = await startService({ env: { ...FAST_DISPATCH, DATABASE_URL: own.url } });
    try {
      const ownAdmin = await issueAdminToken(own.url);
      const fixtures = new Fixtures(all.url, ownAdmin);
      const partner = await fixtures.partnerOf(own.companyId);
      await request(all.url)
        .post('/api/v2/admin/webhooks')
        .set('Authorization', `Bearer ${ownAdmin}`)
        .send({ company_id: own.companyId, url: `${receiver.url}/all-role` })
        .expect(201);
      await request(all.url)
        .post('/api/v2/order')
        .set('Authorization', `Bearer ${partner.token}`)
        .send(orderBody((await fixtures.product()).id))
        .expect(201);
      await receiver.waitFor((received) => received.some((entry) => entry.path === '/all-role'), 10_000);
      await eventually(
        async () => !(await expiredKeyLeft(own.db)),
        () => 'The `all` instance did not delete the expired idempotency key',
        10_000,
      );
      expect(all.logs().find((line) => line.event === 'listening')).toMatchObject({ role: 'all' });
    } finally {
      await all.stop();
      await own.db.end();
    }
  });

  it.each([
    [{ SERVICE_ROLE: 'both' }, 'SERVICE_ROLE: must be one of all, api, worker (got "both").'],
    [
      { SERVICE_ROLE: 'api', WEBHOOK_DISPATCHER: 'true' },
      'WEBHOOK_DISPATCHER: is deprecated and contradicts SERVICE_ROLE=api, which never runs the dispatcher: unset it (got "true").',
    ],
    [
      { SERVICE_ROLE: 'worker', WEBHOOK_DISPATCHER: 'false' },
      'WEBHOOK_DISPATCHER: is deprecated and contradicts SERVICE_ROLE=worker, whose work is the dispatcher: unset it (got "false").',
    ],
  ])('refuses to start with %j', async (env, message) => {
    const result = await startServiceExpectingFailure({ ...env, DATABASE_URL: shared.url });
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain(`Invalid environment variable ${message}`);
  });
});
