import { randomUUID } from 'node:crypto';
import type { PoolClient } from 'pg';
import request from 'supertest';
import { issueAdminToken, startApp, type TestApp } from './harness/app';
import { eventually } from './harness/eventually';
import { type Body, Fixtures, orderBody, type Partner } from './harness/factories';

const REPLAYED = 'idempotent-replayed';
const IN_USE = {
  message: 'A request with this Idempotency-Key is still being processed: retry once it has finished.',
};
const REUSED = {
  message: 'This Idempotency-Key was already used with a different request: use a new key for a new request.',
};

describe('Idempotency-Key on partner writes (CONTRACT §4)', () => {
  let service: TestApp;
  let fixtures: Fixtures;
  let partner: Partner;
  let productId: number;

  const api = () => request(service.url);
  const as = (who: Partner) => ({ Authorization: `Bearer ${who.token}` });
  const place = (key: string | undefined, body: Body, who: Partner = partner) => {
    const call = api().post('/api/v2/order').set(as(who));
    return (key === undefined ? call : call.set('Idempotency-Key', key)).send(body);
  };
  const ordersOf = async (companyId: number) =>
    Number(
      (await service.db.query('SELECT count(*) AS n FROM orders WHERE company_id = $1', [companyId])).rows[0]
        .n,
    );
  async function placed(who: Partner = partner): Promise<number> {
    const response = await place(undefined, orderBody(productId), who).expect(201);
    return Number(response.body.orders[0].order_id);
  }
  /** Holds a row lock in its own transaction until released: what keeps a first request "still running". */
  async function holdLock(sql: string, id: number): Promise<{ release: () => Promise<void> }> {
    const client: PoolClient = await service.db.connect();
    await client.query('BEGIN');
    await client.query(sql, [id]);
    return {
      release: async () => {
        await client.query('COMMIT');
        client.release();
      },
    };
  }

  beforeAll(async () => {
    service = await startApp({
      env: { RATE_LIMIT_PER_MINUTE: '100000', ADMIN_RATE_LIMIT_PER_MINUTE: '100000' },
    });
    fixtures = new Fixtures(service.url, await issueAdminToken(service));
    productId = (await fixtures.product()).id;
  });

  beforeEach(async () => {
    partner = await fixtures.partner('SK');
  });

  afterAll(async () => {
    await service.stop();
  });

  it('places the order once and replays the first status and body, marked Idempotent-Replayed', async () => {
    const key = randomUUID();
    const body = orderBody(productId);
    const first = await place(key, body).expect(201);
    expect(first.headers[REPLAYED]).toBeUndefined();
    const again = await place(key, { ...body }).expect(201);
    expect(again.headers[REPLAYED]).toBe('true');
    expect(again.text).toBe(first.text);
    expect(await ordersOf(partner.companyId)).toBe(1);
  });

  it('treats the same body with its keys in another order as the same request', async () => {
    const key = randomUUID();
    const body = orderBody(productId);
    const first = await place(key, body).expect(201);
    const reordered = Object.fromEntries(Object.entries(body).reverse());
    const again = await place(key, reordered).expect(201);
    expect(again.headers[REPLAYED]).toBe('true');
    expect(again.body).toEqual(first.body);
  });

  it('answers 422 to the same key with another body, and stores nothing for it', async () => {
    const key = randomUUID();
    await place(key, orderBody(productId)).expect(201);
    const other = await place(key, orderBody(productId)).expect(422);
    expect(other.body).toEqual(REUSED);
    expect(other.headers[REPLAYED]).toBeUndefined();
    expect(await ordersOf(partner.companyId)).toBe(1);
  });

  it('answers 422 to the same key on another route', async () => {
    const key = randomUUID();
    const id = await placed();
    await api().post(`/api/v2/order/${id}/cancel`).set(as(partner)).set('Idempotency-Key', key).expect(200);
    const response = await api()
      .post(`/api/v2/order/${id}/update`)
      .set(as(partner))
      .set('Idempotency-Key', key)
      .send({});
    expect(response.status).toBe(422);
    expect(response.body).toEqual(REUSED);
  });

  it('scopes keys to the company: another company may use the same key for its own order', async () => {
    const key = randomUUID();
    const other = await fixtures.partner('CZ');
    const body = orderBody(productId);
    const mine = await place(key, body).expect(201);
    const theirs = await place(key, body, other).expect(201);
    expect(theirs.headers[REPLAYED]).toBeUndefined();
    expect(theirs.body.orders[0].order_id).not.toBe(mine.body.orders[0].order_id);
    expect(await ordersOf(other.companyId)).toBe(1);
  });

  it('answers 409 to a repeat while the first request is still running, then replays once it is done', async () => {
    const key = randomUUID();
    const body = orderBody(productId);
    const lock = await holdLock('SELECT id FROM companies WHERE id = $1 FOR UPDATE', partner.companyId);
    const first = place(key, body).then((response) => response);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const repeat = await place(key, body);
    expect(repeat.status).toBe(409);
    expect(repeat.body).toEqual(IN_USE);
    await lock.release();
    expect((await first).status).toBe(201);
    const replay = await place(key, body).expect(201);
    expect(replay.headers[REPLAYED]).toBe('true');
    expect(replay.body).toEqual((await first).body);
    expect(await ordersOf(partner.companyId)).toBe(1);
  });

  it('creates exactly one order when 20 identical requests arrive at once on two instances', async () => {
    const key = randomUUID();
    const body = orderBody(productId);
    const other = await startApp({
      env: {
        DATABASE_URL: service.databaseUrl,
        WEBHOOK_DISPATCHER: 'false',
        RATE_LIMIT_PER_MINUTE: '100000',
      },
    });
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, index) =>
        request(index % 2 === 0 ? service.url : other.url)
          .post('/api/v2/order')
          .set(as(partner))
          .set('Idempotency-Key', key)
          .send(body),
      ),
    ).finally(() => other.stop());
    const statuses = responses.map((response) => response.status);
    expect(statuses.every((status) => status === 201 || status === 409)).toBe(true);
    const created = responses.filter((response) => response.status === 201);
    expect(created.filter((response) => response.headers[REPLAYED] === undefined)).toHaveLength(1);
    expect(new Set(created.map((response) => response.text)).size).toBe(1);
    expect(await ordersOf(partner.companyId)).toBe(1);
    const audit = await service.db.query(
      `SELECT count(*) AS n FROM audit_events WHERE company_id = $1 AND action = 'order.placed'`,
      [partner.companyId],
    );
    expect(Number(audit.rows[0].n)).toBe(1);
  });

  it('replays a 400 the first request got, and stores no order for it', async () => {
    const key = randomUUID();
    const invalid = orderBody(productId, { email: 'not-an-email' });
    const first = await place(key, invalid).expect(400);
    const again = await place(key, invalid).expect(400);
    expect(again.body).toEqual(first.body);
    expect(again.headers[REPLAYED]).toBe('true');
    expect(await ordersOf(partner.companyId)).toBe(0);
  });

  it("replays a 404 for another company's order exactly as for a missing one", async () => {
    const foreign = await placed(await fixtures.partner('SK'));
    const key = randomUUID();
    const update = () =>
      api()
        .post(`/api/v2/order/${foreign}/update`)
        .set(as(partner))
        .set('Idempotency-Key', key)
        .send({ city: 'Nitra' });
    expect((await update()).body).toEqual({ message: 'Order not found.' });
    const again = await update();
    expect(again.status).toBe(404);
    expect(again.body).toEqual({ message: 'Order not found.' });
    expect(again.headers[REPLAYED]).toBe('true');
  });

  it('replays an update: the order changes once, and a retried cancel answers its first 200, not 409', async () => {
    const id = await placed();
    const updateKey = randomUUID();
    const update = () =>
      api()
        .post(`/api/v2/order/${id}/update`)
        .set(as(partner))
        .set('Idempotency-Key', updateKey)
        .send({ city: 'Nitra' });
    const updated = await update().expect(200);
    expect(updated.headers.etag).toBe('"2"');
    const replayed = await update().expect(200);
    expect(replayed.headers[REPLAYED]).toBe('true');
    expect(replayed.headers.etag).toBe('"2"');
    const version = await service.db.query('SELECT version FROM orders WHERE id = $1', [id]);
    expect(version.rows[0].version).toBe(2);

    const cancelKey = randomUUID();
    const cancel = () =>
      api().post(`/api/v2/order/${id}/cancel`).set(as(partner)).set('Idempotency-Key', cancelKey);
    const first = await cancel().expect(200);
    const retried = await cancel().expect(200);
    expect(retried.body).toEqual(first.body);
    expect(retried.headers[REPLAYED]).toBe('true');
    expect(first.headers.etag).toBe('"3"');
    expect(retried.headers.etag).toBe(first.headers.etag);
  });

  it('stores every response sealed: nothing of it readable in idempotency_keys', async () => {
    const key = randomUUID();
    const first = await place(key, orderBody(productId)).expect(201);
    const invalid = randomUUID();
    await place(invalid, orderBody(productId, { email: 'not-an-email' })).expect(400);
    const rows = await service.db.query(
      'SELECT key, response_status, response FROM idempotency_keys WHERE company_id = $1 ORDER BY response_status',
      [partner.companyId],
    );
    expect(rows.rows).toEqual([
      { key, response_status: 201, response: expect.stringMatching(/^v1:[\w-]+:[\w-]+:[\w-]+$/) },
      { key: invalid, response_status: 400, response: expect.stringMatching(/^v1:/) },
    ]);
    expect(JSON.stringify(rows.rows)).not.toContain(first.body.orders[0].order_ref);
    expect(JSON.stringify(rows.rows)).not.toContain('email');
  });

  it('adds a comment once however often it is retried with the same key', async () => {
    const id = await placed();
    const key = randomUUID();
    const comment = () =>
      api()
        .post(`/api/v2/order/${id}/comment`)
        .set(as(partner))
        .set('Idempotency-Key', key)
        .send({ partner_comment: 'Ring twice.' });
    expect((await comment().expect(200)).body).toEqual({ success: true });
    expect((await comment().expect(200)).headers[REPLAYED]).toBe('true');
    const audit = await service.db.query(
      `SELECT action FROM audit_events WHERE target_type = 'order' AND target_id = $1 AND action LIKE 'order.comment%'`,
      [String(id)],
    );
    expect(audit.rows).toEqual([{ action: 'order.comment_added' }]);
  });

  it('refuses a key that is empty, too long or not visible ASCII, and stores nothing', async () => {
    for (const key of ['', 'k'.repeat(256), 'two words']) {
      const response = await place(key, orderBody(productId));
      expect(response.status).toBe(400);
      expect(response.body).toEqual({
        message: 'Bad request.',
        errors: {
          'Idempotency-Key': ['The Idempotency-Key header must be 1 to 255 visible ASCII characters.'],
        },
      });
    }
    expect(await ordersOf(partner.companyId)).toBe(0);
    const keys = await service.db.query('SELECT count(*) AS n FROM idempotency_keys WHERE company_id = $1', [
      partner.companyId,
    ]);
    expect(Number(keys.rows[0].n)).toBe(0);
  });

  it('stores nothing when the request fails with a 5xx, so the retry is carried out', async () => {
    const key = randomUUID();
    const body = orderBody(productId);
    await service.db.query(`
      CREATE FUNCTION fail_placement() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'injected failure'; END $$;
      CREATE TRIGGER fail_placement BEFORE INSERT ON audit_events
        FOR EACH ROW WHEN (NEW.action = 'order.placed') EXECUTE FUNCTION fail_placement();`);
    try {
      expect((await place(key, body)).status).toBe(500);
    } finally {
      await service.db.query('DROP TRIGGER fail_placement ON audit_events; DROP FUNCTION fail_placement()');
    }
    expect(await ordersOf(partner.companyId)).toBe(0);
    const retried = await place(key, body).expect(201);
    expect(retried.headers[REPLAYED]).toBeUndefined();
    expect(await ordersOf(partner.companyId)).toBe(1);
  });

  it('carries an expired key out again, and deletes expired keys when an instance starts', async () => {
    const key = randomUUID();
    const body = orderBody(productId);
    await place(key, body).expect(201);
    await service.db.query(
      `UPDATE idempotency_keys SET expires_at = now() - interval '1 second' WHERE company_id = $1`,
      [partner.companyId],
    );
    const after = await place(key, body).expect(201);
    expect(after.headers[REPLAYED]).toBeUndefined();
    expect(await ordersOf(partner.companyId)).toBe(2);

    await service.db.query(
      `UPDATE idempotency_keys SET expires_at = now() - interval '1 second' WHERE company_id = $1`,
      [partner.companyId],
    );
    const second = await startApp({
      env: { DATABASE_URL: service.databaseUrl, WEBHOOK_DISPATCHER: 'false' },
    });
    try {
      const keysLeft = async () =>
        Number(
          (
            await service.db.query('SELECT count(*) AS n FROM idempotency_keys WHERE company_id = $1', [
              partner.companyId,
            ])
          ).rows[0].n,
        );
      await eventually(
        async () => (await keysLeft()) === 0,
        () => 'The expired key was not deleted',
        10_000,
      );
    } finally {
      await second.stop();
    }
  });
});
