import { createHash } from 'node:crypto';
import request from 'supertest';
import { issueAdminToken, startApp, type TestApp } from './harness/app';
import { asText } from './harness/as-text';
import { runCli } from './harness/cli';
import { Fixtures, orderBody, type Partner } from './harness/factories';

const FORBIDDEN = { message: 'Forbidden.' };
const UNAUTHENTICATED = { message: 'Unauthenticated.' };
const DATETIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/;
/** No order has this id: a write that passes the access guard answers 404 (or 400) and changes nothing. */
const MISSING_ID = '2147483647';
const HOUR_MS = 60 * 60 * 1000;

/** An API datetime input with seconds, in the service time zone (UTC in these specs). */
const inputAt = (ms: number): string => new Date(ms).toISOString().slice(0, 19);
const sha256 = (secret: string): Buffer => createHash('sha256').update(secret).digest();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const dataOf = <T>(body: unknown): T[] => (body as { data: T[] }).data;

interface Operation {
  method: string;
  path: string;
  operationId: string;
}

describe('partner tokens with less power: read-only tokens and token rolls (CONTRACT §6)', () => {
  let service: TestApp;
  let admin: string;
  let fixtures: Fixtures;
  let productId: number;

  const api = () => request(service.url);
  const as = (token: string) => ({ Authorization: `Bearer ${token}` });

  async function issue(body: Record<string, unknown>) {
    const response = await api().post('/api/v2/admin/tokens').set(as(admin)).send(body);
    expect(response.status).toBe(201);
    return response.body as { id: number; token: string; read_only: boolean } & Record<string, unknown>;
  }

  async function readOnlyOf(partner: Partner) {
    return issue({
      role: 'partner',
      user_name: `${partner.userName}-reader`,
      company_id: partner.companyId,
      read_only: true,
    });
  }

  async function place(partner: Partner, headers: Record<string, string> = {}, overrides = {}) {
    const response = await api()
      .post('/api/v2/order')
      .set(as(partner.token))
      .set(headers)
      .send(orderBody(productId, overrides));
    expect(response.status).toBe(201);
    return Number(response.body.orders[0].order_id);
  }

  /** Every operation of the OpenAPI document under /api/v2 that is not a GET or HEAD: the writes. */
  async function writeOperations(): Promise<Operation[]> {
    const document = (await api().get('/api/docs-json').expect(200)).body as {
      paths: Record<string, Record<string, { operationId: string }>>;
    };
    return Object.entries(document.paths)
      .filter(([path]) => path.startsWith('/api/v2/'))
      .flatMap(([path, operations]) =>
        Object.entries(operations)
          .filter(([method]) => ['post', 'put', 'patch', 'delete'].includes(method))
          .map(([method, operation]) => ({ method, path, operationId: operation.operationId })),
      );
  }

  const call = (operation: Operation, token: string, path = operation.path) =>
    api()
      [operation.method as 'post' | 'put' | 'patch' | 'delete'](path.replace(/\{[^}]+\}/g, MISSING_ID))
      .set(as(token))
      .send({});

  beforeAll(async () => {
    service = await startApp({
      env: { RATE_LIMIT_PER_MINUTE: '10000', ADMIN_RATE_LIMIT_PER_MINUTE: '10000' },
    });
    admin = await issueAdminToken(service);
    fixtures = new Fixtures(service.url, admin);
    productId = (await fixtures.product()).id;
  });

  afterAll(async () => {
    await service.stop();
  });

  describe('read-only partner tokens', () => {
    it('issues a read-only partner token, shows it as such in the list and records it in the audit trail', async () => {
      const partner = await fixtures.partner();
      const reader = await readOnlyOf(partner);
      expect(reader).toMatchObject({ role: 'partner', company_id: partner.companyId, read_only: true });
      const list = await api()
        .get(`/api/v2/admin/tokens?company_id=${partner.companyId}`)
        .set(as(admin))
        .expect(200);
      expect(
        dataOf<{ id: number; read_only: boolean }>(list.body).map((token) => [token.id, token.read_only]),
      ).toEqual([
        [partner.tokenId, false],
        [reader.id, true],
      ]);
      const audit = await api()
        .get(`/api/v2/admin/audit-events?company_id=${partner.companyId}`)
        .set(as(admin))
        .expect(200);
      expect(audit.body.data[0]).toMatchObject({
        action: 'token.issued',
        target_id: reader.id,
        changed_fields: ['company_id', 'read_only', 'role', 'user_name'],
      });
    });

    it.each([
      ['an admin token', { role: 'admin' }],
      ['a logistics token', { role: 'logistics' }],
    ])('refuses to make %s read-only', async (_label, body) => {
      const response = await api()
        .post('/api/v2/admin/tokens')
        .set(as(admin))
        .send({ ...body, user_name: 'reader', read_only: true });
      expect(response.status).toBe(400);
      expect(response.body).toEqual({
        message: 'Bad request.',
        errors: { read_only: ['Only a partner token can be read-only.'] },
      });
    });

    it('refuses a read_only that is not a boolean', async () => {
      const partner = await fixtures.partner();
      const response = await api()
        .post('/api/v2/admin/tokens')
        .set(as(admin))
        .send({ role: 'partner', user_name: 'reader', company_id: partner.companyId, read_only: 'yes' });
      expect(response.status).toBe(400);
      expect(response.body).toEqual({
        message: 'Bad request.',
        errors: { read_only: ['The read only field must be true or false.'] },
      });
    });

    it("lists, reads and exports its company's orders, lists products and follows the feed", async () => {
      const partner = await fixtures.partner();
      const reader = await readOnlyOf(partner);
      const orderId = await place(partner);
      const list = await api().get('/api/v2/orders').set(as(reader.token)).expect(200);
      expect(dataOf<{ order_id: number }>(list.body).map((order) => order.order_id)).toEqual([orderId]);
      await api().get(`/api/v2/order/${orderId}`).set(as(reader.token)).expect(200);
      const csv = await api()
        .get('/api/v2/orders/export?format=csv')
        .set(as(reader.token))
        .buffer(true)
        .parse(asText)
        .expect(200);
      expect((csv.body as string).split('\r\n').filter(Boolean)).toHaveLength(2);
      await api().head('/api/v2/orders/export?format=ndjson').set(as(reader.token)).expect(200);
      const feed = await api().get('/api/v2/events').set(as(reader.token)).expect(200);
      expect(dataOf<{ type: string }>(feed.body).map((event) => event.type)).toContain('order.placed');
      await api().get('/api/v2/product').set(as(reader.token)).expect(200);
    });

    it('gets 403 on every write operation of the OpenAPI document, while a writing partner token reaches the partner ones', async () => {
      const partner = await fixtures.partner();
      const reader = await readOnlyOf(partner);
      const operations = await writeOperations();
      const partnerWrites: string[] = [];
      for (const operation of operations) {
        const refused = await call(operation, reader.token);
        expect({ operation: operation.operationId, status: refused.status, body: refused.body }).toEqual({
          operation: operation.operationId,
          status: 403,
          body: FORBIDDEN,
        });
        if ((await call(operation, partner.token)).status !== 403) partnerWrites.push(operation.operationId);
      }
      expect(partnerWrites).toEqual(
        expect.arrayContaining([
          'placeOrder',
          'updateOrder',
          'cancelOrder',
          'commentOnOrder',
          'simulateOrder',
        ]),
      );
    });

    it('changes nothing on its own order: update, comment, cancel and the sandbox are all 403', async () => {
      const partner = await fixtures.partner();
      const reader = await readOnlyOf(partner);
      const orderId = await place(partner, {}, { test: true });
      const before = await api().get(`/api/v2/order/${orderId}`).set(as(partner.token)).expect(200);
      const writes = [
        api().post(`/api/v2/order/${orderId}/update`).send({ city: 'Elsewhere' }),
        api().post(`/api/v2/order/${orderId}/comment`).send({ partner_comment: 'Hello' }),
        api().post(`/api/v2/order/${orderId}/cancel`).send({}),
        api().post(`/api/v2/order/${orderId}/simulate`).send({ to: 'DELIVERED' }),
        api().post('/api/v2/order').send(orderBody(productId)),
      ];
      for (const write of writes) {
        const response = await write.set(as(reader.token));
        expect([response.status, response.body]).toEqual([403, FORBIDDEN]);
      }
      const after = await api().get(`/api/v2/order/${orderId}`).set(as(partner.token)).expect(200);
      expect(after.body).toEqual(before.body);
      const orders = await service.db.query('SELECT count(*)::int AS n FROM orders WHERE company_id = $1', [
        partner.companyId,
      ]);
      expect(orders.rows[0].n).toBe(1);
    });

    it("never replays a writing token's idempotent response to a read-only token of the same company", async () => {
      const partner = await fixtures.partner();
      const reader = await readOnlyOf(partner);
      const key = `replay-${partner.tokenId}`;
      const body = orderBody(productId);
      const first = await api()
        .post('/api/v2/order')
        .set(as(partner.token))
        .set('Idempotency-Key', key)
        .send(body);
      expect(first.status).toBe(201);
      const replay = await api()
        .post('/api/v2/order')
        .set(as(reader.token))
        .set('Idempotency-Key', key)
        .send(body);
      expect(replay.status).toBe(403);
      expect(replay.body).toEqual(FORBIDDEN);
      expect(replay.headers['idempotent-replayed']).toBeUndefined();
      const writerReplay = await api()
        .post('/api/v2/order')
        .set(as(partner.token))
        .set('Idempotency-Key', key)
        .send(body);
      expect([writerReplay.status, writerReplay.headers['idempotent-replayed']]).toEqual([201, 'true']);
    });

    it('issues a read-only token with the CLI (--read-only)', async () => {
      const partner = await fixtures.partner();
      const result = await runCli(service.databaseUrl, [
        'tokens:create',
        '--role',
        'partner',
        '--company-id',
        String(partner.companyId),
        '--user-name',
        'cli-reader',
        '--read-only',
      ]);
      expect(result.code).toBe(0);
      expect(result.json).toMatchObject({ role: 'partner', read_only: true });
      const token = result.json!.token as string;
      await api().get('/api/v2/orders').set(as(token)).expect(200);
      await api().post('/api/v2/order').set(as(token)).send(orderBody(productId)).expect(403, FORBIDDEN);
    });
  });

  describe('token roll', () => {
    const roll = (id: number | string, body: Record<string, unknown> = {}, token = admin) =>
      api().post(`/api/v2/admin/tokens/${id}/roll`).set(as(token)).send(body);

    it('gives a new secret at once and keeps the old one for 24 hours by default, both stored only hashed', async () => {
      const partner = await fixtures.partner();
      const before = Date.now();
      const response = await roll(partner.tokenId);
      expect(response.status).toBe(201);
      const rolled = response.body as { token: string; rolled_at: string; previous_expires_at: string };
      expect(rolled).toMatchObject({
        id: partner.tokenId,
        role: 'partner',
        user_name: partner.userName,
        company_id: partner.companyId,
        read_only: false,
        prefix: rolled.token.slice(0, 12),
        rolled_at: expect.stringMatching(DATETIME),
        previous_expires_at: expect.stringMatching(DATETIME),
      });
      expect(rolled.token).not.toBe(partner.token);
      const overlapEnd = Date.parse(`${rolled.previous_expires_at}:00Z`);
      expect(overlapEnd).toBeGreaterThanOrEqual(before + 24 * HOUR_MS - 60_000);
      expect(overlapEnd).toBeLessThanOrEqual(Date.now() + 24 * HOUR_MS);
      await api().get('/api/v2/orders').set(as(rolled.token)).expect(200);
      await api().get('/api/v2/orders').set(as(partner.token)).expect(200);
      const row = await service.db.query<{ token_hash: Buffer; previous_token_hash: Buffer }>(
        'SELECT token_hash, previous_token_hash FROM api_tokens WHERE id = $1',
        [partner.tokenId],
      );
      expect(row.rows[0].token_hash.equals(sha256(rolled.token))).toBe(true);
      expect(row.rows[0].previous_token_hash.equals(sha256(partner.token))).toBe(true);
      const list = await api()
        .get(`/api/v2/admin/tokens?company_id=${partner.companyId}`)
        .set(as(admin))
        .expect(200);
      expect(list.body.data).toEqual([
        expect.objectContaining({
          id: partner.tokenId,
          rolled_at: rolled.rolled_at,
          previous_expires_at: rolled.previous_expires_at,
        }),
      ]);
      expect(JSON.stringify(list.body)).not.toContain(rolled.token);
    });

    it('refuses the old secret (401) once the chosen time has passed, and at once when that time is now', async () => {
      const partner = await fixtures.partner();
      const rolled = (
        await roll(partner.tokenId, { previous_expires_at: inputAt(Date.now() + 2_000) }).expect(201)
      ).body;
      await api().get('/api/v2/orders').set(as(partner.token)).expect(200);
      await sleep(2_500);
      await api().get('/api/v2/orders').set(as(partner.token)).expect(401, UNAUTHENTICATED);
      await api().get('/api/v2/orders').set(as(rolled.token)).expect(200);

      const other = await fixtures.partner();
      await api().get('/api/v2/orders').set(as(other.token)).expect(200);
      const immediate = (await roll(other.tokenId, { previous_expires_at: inputAt(Date.now()) }).expect(201))
        .body;
      await api().get('/api/v2/orders').set(as(other.token)).expect(401, UNAUTHENTICATED);
      await api().get('/api/v2/orders').set(as(immediate.token)).expect(200);
    });

    it('refuses a previous secret that would outlive 7 days, and a malformed time', async () => {
      const partner = await fixtures.partner();
      const tooLate = await roll(partner.tokenId, {
        previous_expires_at: inputAt(Date.now() + 7 * 24 * HOUR_MS + HOUR_MS),
      });
      expect(tooLate.status).toBe(400);
      expect(tooLate.body).toEqual({
        message: 'Bad request.',
        errors: { previous_expires_at: ['The previous secret can stay valid at most 7 days from now.'] },
      });
      const malformed = await roll(partner.tokenId, { previous_expires_at: 'tomorrow' });
      expect(malformed.status).toBe(400);
      expect(Object.keys(malformed.body.errors)).toEqual(['previous_expires_at']);
      await api().get('/api/v2/orders').set(as(partner.token)).expect(200);
      const row = await service.db.query('SELECT rolled_at FROM api_tokens WHERE id = $1', [partner.tokenId]);
      expect(row.rows[0].rolled_at).toBeNull();
    });

    it('keeps a read-only token read-only under its new secret', async () => {
      const partner = await fixtures.partner();
      const reader = await readOnlyOf(partner);
      const rolled = (await roll(reader.id).expect(201)).body;
      expect(rolled.read_only).toBe(true);
      await api().get('/api/v2/orders').set(as(rolled.token)).expect(200);
      await api()
        .post('/api/v2/order')
        .set(as(rolled.token))
        .send(orderBody(productId))
        .expect(403, FORBIDDEN);
      await api()
        .post('/api/v2/order')
        .set(as(reader.token))
        .send(orderBody(productId))
        .expect(403, FORBIDDEN);
    });

    it('drops the secret of an earlier roll when the token is rolled again', async () => {
      const partner = await fixtures.partner();
      const second = (await roll(partner.tokenId).expect(201)).body;
      const third = (await roll(partner.tokenId).expect(201)).body;
      await api().get('/api/v2/orders').set(as(partner.token)).expect(401, UNAUTHENTICATED);
      await api().get('/api/v2/orders').set(as(second.token)).expect(200);
      await api().get('/api/v2/orders').set(as(third.token)).expect(200);
    });

    it('ends both secrets when a rolled token is revoked, and rolls no revoked token', async () => {
      const partner = await fixtures.partner();
      const rolled = (await roll(partner.tokenId).expect(201)).body;
      await api().get('/api/v2/orders').set(as(partner.token)).expect(200);
      await api().get('/api/v2/orders').set(as(rolled.token)).expect(200);
      await api().delete(`/api/v2/admin/tokens/${partner.tokenId}`).set(as(admin)).expect(200);
      await api().get('/api/v2/orders').set(as(partner.token)).expect(401, UNAUTHENTICATED);
      await api().get('/api/v2/orders').set(as(rolled.token)).expect(401, UNAUTHENTICATED);
      const again = await roll(partner.tokenId);
      expect([again.status, again.body]).toEqual([
        409,
        { message: 'Token cannot be rolled: it has been revoked. Issue a new one.' },
      ]);
    });

    it('answers 404 for an unknown token and 403 to a partner', async () => {
      await roll(MISSING_ID).expect(404, { message: 'Token not found.' });
      await roll('abc').expect(404, { message: 'Token not found.' });
      const partner = await fixtures.partner();
      await roll(partner.tokenId, {}, partner.token).expect(403, FORBIDDEN);
    });

    it('records the roll in the audit trail, naming fields but no secret', async () => {
      const partner = await fixtures.partner();
      const response = await roll(partner.tokenId).set('X-Request-Id', `roll-${partner.tokenId}`).expect(201);
      const rolled = response.body as { token: string };
      const audit = await api()
        .get(`/api/v2/admin/audit-events?company_id=${partner.companyId}`)
        .set(as(admin))
        .expect(200);
      expect(audit.body.data[0]).toMatchObject({
        action: 'token.rolled',
        target_type: 'token',
        target_id: partner.tokenId,
        request_id: `roll-${partner.tokenId}`,
        changed_fields: ['prefix', 'previous_expires_at', 'rolled_at'],
      });
      expect(JSON.stringify(audit.body)).not.toContain(rolled.token.slice(4));
    });

    it('rolls with the CLI (tokens:roll)', async () => {
      const partner = await fixtures.partner();
      const result = await runCli(service.databaseUrl, [
        'tokens:roll',
        '--id',
        String(partner.tokenId),
        '--previous-expires-at',
        inputAt(Date.now()),
      ]);
      expect(result.code).toBe(0);
      expect(result.json).toMatchObject({ id: partner.tokenId, rolled_at: expect.stringMatching(DATETIME) });
      await api()
        .get('/api/v2/orders')
        .set(as(result.json!.token as string))
        .expect(200);
      const late = await runCli(service.databaseUrl, [
        'tokens:roll',
        '--id',
        String(partner.tokenId),
        '--previous-expires-at',
        '2099-01-01',
      ]);
      expect(late.code).not.toBe(0);
      expect(late.stdout).toBe('');
      expect(late.stderr).toMatch(/7 days/);
    });

    it('refuses the old secret on another instance that had it cached, once a roll ends it', async () => {
      const other = await startApp({ env: { DATABASE_URL: service.databaseUrl } });
      try {
        const partner = await fixtures.partner();
        await request(other.url).get('/api/v2/orders').set(as(partner.token)).expect(200);
        await roll(partner.tokenId, { previous_expires_at: inputAt(Date.now()) }).expect(201);
        await sleep(200);
        await request(other.url).get('/api/v2/orders').set(as(partner.token)).expect(401, UNAUTHENTICATED);
      } finally {
        await other.stop();
      }
    });
  });
});
