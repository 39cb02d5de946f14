import { parse } from 'csv-parse/sync';
import request from 'supertest';
import { asText } from './harness/as-text';
import { issueAdminToken, startApp, type TestApp } from './harness/app';
import { Fixtures, orderBody, type Partner } from './harness/factories';

/**
 * Issue 31, item 5: the order's `version` (the ETag of GET /order/{id}) is a field of the order object, so a
 * partner can send If-Match for an order it found in a list or an export, without reading it first.
 */
describe("the order's version in lists and exports, for If-Match", () => {
  let app: TestApp;
  let partner: Partner;
  let productId: number;

  const as = (token: string) => ({ Authorization: `Bearer ${token}` });
  const place = async (): Promise<number> => {
    const response = await request(app.url)
      .post('/api/v2/order')
      .set(as(partner.token))
      .send(orderBody(productId));
    expect(response.status).toBe(201);
    return Number(response.body.orders[0].order_id);
  };
  const stored = async (id: number) =>
    (await app.db.query('SELECT version, email, state FROM orders WHERE id = $1', [id])).rows[0] as {
      version: number;
      email: string;
      state: string;
    };
  const listed = async (path: '/api/v2/order' | '/api/v2/orders', id: number) => {
    const response = await request(app.url).get(`${path}?order_id=${id}`).set(as(partner.token)).expect(200);
    expect(response.body.data).toHaveLength(1);
    return response.body.data[0] as { order_id: number; version: number };
  };
  const exported = async (format: 'csv' | 'ndjson', id: number) =>
    (
      await request(app.url)
        .get(`/api/v2/orders/export?format=${format}&order_id=${id}`)
        .set(as(partner.token))
        .buffer(true)
        .parse(asText)
        .expect(200)
    ).body as string;
  const update = (id: number, version: number, email: string) =>
    request(app.url)
      .post(`/api/v2/order/${id}/update`)
      .set({ ...as(partner.token), 'If-Match': `"${version}"` })
      .send({ email });

  beforeAll(async () => {
    app = await startApp({
      env: { RATE_LIMIT_PER_MINUTE: '100000', ADMIN_RATE_LIMIT_PER_MINUTE: '100000' },
    });
    const fixtures = new Fixtures(app.url, await issueAdminToken(app));
    partner = await fixtures.partner();
    productId = (await fixtures.product()).id;
  });

  afterAll(async () => {
    await app.stop();
  });

  it('gives GET /order/{id}, both lists and both export formats the version the ETag names', async () => {
    const id = await place();
    await update(id, 1, 'moved.once@example.com').expect(200);
    const single = await request(app.url).get(`/api/v2/order/${id}`).set(as(partner.token)).expect(200);
    expect(single.headers.etag).toBe('"2"');
    expect(single.body.version).toBe(2);
    expect((await listed('/api/v2/order', id)).version).toBe(2);
    expect((await listed('/api/v2/orders', id)).version).toBe(2);
    const line = JSON.parse((await exported('ndjson', id)).trimEnd()) as {
      order_id: number;
      version: number;
    };
    expect(line).toMatchObject({ order_id: id, version: 2 });
    const rows = parse<Record<string, string>>(await exported('csv', id), { columns: true });
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ order_id: String(id), version: '2' });
    expect(Object.keys(rows[0]).at(-1)).toBe('version');
  });

  it('applies an update with If-Match taken from a list item, and refuses a stale one with 412', async () => {
    const id = await place();
    const item = await listed('/api/v2/order', id);
    expect(item.version).toBe((await stored(id)).version);

    const updated = await update(id, item.version, 'from.the.list@example.com');
    expect(updated.status).toBe(200);
    expect(updated.body).toEqual({
      message: 'Order updated.',
      orders: [expect.objectContaining({ order_id: id })],
    });
    expect(updated.headers.etag).toBe(`"${item.version + 1}"`);
    expect(await stored(id)).toMatchObject({ version: item.version + 1, email: 'from.the.list@example.com' });

    const stale = await update(id, item.version, 'stale.list@example.com');
    expect(stale.status).toBe(412);
    expect(stale.body).toEqual({
      message: `The order has changed since you read it (it is now at version ${item.version + 1}): read it again.`,
    });
    expect(await stored(id)).toMatchObject({ version: item.version + 1, email: 'from.the.list@example.com' });
  });

  it('cancels with If-Match taken from an export line, and refuses a stale one with 412', async () => {
    const id = await place();
    const version = (JSON.parse((await exported('ndjson', id)).trimEnd()) as { version: number }).version;
    await update(id, version, 'changed.after.export@example.com').expect(200);
    const cancel = (ifMatch: number) =>
      request(app.url)
        .post(`/api/v2/order/${id}/cancel`)
        .set({ ...as(partner.token), 'If-Match': `"${ifMatch}"` });

    const stale = await cancel(version);
    expect(stale.status).toBe(412);
    expect(await stored(id)).toMatchObject({ version: version + 1, state: 'PLACED' });

    const fresh = (JSON.parse((await exported('ndjson', id)).trimEnd()) as { version: number }).version;
    expect(fresh).toBe(version + 1);
    const cancelled = await cancel(fresh);
    expect(cancelled.status).toBe(200);
    expect(await stored(id)).toMatchObject({ version: fresh + 1, state: 'CANCELLED' });
  });
});
