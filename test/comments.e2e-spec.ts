import request from 'supertest';
import { issueAdminToken, startApp, type TestApp } from './harness/app';
import { Fixtures, orderBody, type Partner, unique } from './harness/factories';

const DATETIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/;
const NOT_FOUND = { success: false, message: 'Order not found.' };
const OK = { success: true };
const invalid = (message: string) => ({ message: 'Validation failed', errors: { partner_comment: message } });

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface CommentRow {
  id: number;
  order_id: number;
  user_name: string;
  partner_comment: string;
  created_at: Date;
  updated_at: Date;
}

describe('comments: a partner comments on an order', () => {
  let service: TestApp;
  let admin: string;
  let alice: Partner;
  let bob: Partner;
  let stranger: Partner;
  let productId: number;

  const api = () => request(service.url);
  const bearer = (token: string) => `Bearer ${token}`;

  async function placeOrder(partner: Partner): Promise<number> {
    const response = await api()
      .post('/api/v2/order')
      .set('Authorization', bearer(partner.token))
      .send(orderBody(productId));
    expect(response.status).toBe(201);
    return Number(response.body.orders[0].order_id);
  }

  const comment = (partner: Partner, orderId: number | string, body: unknown) =>
    api()
      .post(`/api/v2/order/${orderId}/comment`)
      .set('Authorization', bearer(partner.token))
      .send(body as object);

  async function comments(orderId: number): Promise<CommentRow[]> {
    const result = await service.db.query<CommentRow>(
      'SELECT * FROM order_comments WHERE order_id = $1 ORDER BY id',
      [orderId],
    );
    return result.rows;
  }

  async function orderUpdatedAt(orderId: number): Promise<Date> {
    const result = await service.db.query<{ updated_at: Date }>(
      'SELECT updated_at FROM orders WHERE id = $1',
      [orderId],
    );
    return result.rows[0].updated_at;
  }

  async function countRows(table: 'order_comments' | 'audit_events'): Promise<number> {
    const result = await service.db.query<{ n: string }>(`SELECT count(*) AS n FROM ${table}`);
    return Number(result.rows[0].n);
  }

  beforeAll(async () => {
    service = await startApp({
      env: { RATE_LIMIT_PER_MINUTE: '100000', ADMIN_RATE_LIMIT_PER_MINUTE: '100000' },
    });
    admin = await issueAdminToken(service);
    const fixtures = new Fixtures(service.url, admin);
    alice = await fixtures.partner();
    bob = await fixtures.partnerOf(alice.companyId);
    stranger = await fixtures.partner();
    productId = (await fixtures.product()).id;
  });

  afterAll(async () => {
    await service.stop();
  });

  it('adds a comment: 200 {"success":true}, stored under the token user, and the order updated_at moves', async () => {
    const orderId = await placeOrder(alice);
    const before = await orderUpdatedAt(orderId);
    await sleep(5);
    const response = await comment(alice, orderId, { partner_comment: 'Deliver after noon' });
    expect({ status: response.status, body: response.body }).toEqual({ status: 200, body: OK });
    expect(await comments(orderId)).toEqual([
      expect.objectContaining({ user_name: alice.userName, partner_comment: 'Deliver after noon' }),
    ]);
    expect((await orderUpdatedAt(orderId)).getTime()).toBeGreaterThan(before.getTime());
  });

  it('shows the comment in GET /order/{id} comments and in the list partner_comments', async () => {
    const orderId = await placeOrder(alice);
    await comment(alice, orderId, { partner_comment: 'Visible everywhere' }).expect(200, OK);
    const [row] = await comments(orderId);
    const expected = {
      id: row.id,
      partner_comment: 'Visible everywhere',
      user_name: alice.userName,
      created_at: row.created_at.toISOString().slice(0, 16),
      updated_at: row.updated_at.toISOString().slice(0, 16),
    };
    expect(expected.created_at).toMatch(DATETIME);
    const single = await api().get(`/api/v2/order/${orderId}`).set('Authorization', bearer(bob.token));
    expect(single.status).toBe(200);
    expect(single.body.comments).toEqual([expected]);
    const list = await api().get(`/api/v2/order?order_id=${orderId}`).set('Authorization', bearer(bob.token));
    expect(list.status).toBe(200);
    expect(list.body.data).toHaveLength(1);
    expect(list.body.data[0].partner_comments).toEqual([expected]);
  });

  it('replaces the text when the same user comments again: still one row, its updated_at and the order move', async () => {
    const orderId = await placeOrder(alice);
    await comment(alice, orderId, { partner_comment: 'First text' }).expect(200, OK);
    const [first] = await comments(orderId);
    const orderBefore = await orderUpdatedAt(orderId);
    await sleep(5);
    const response = await comment(alice, orderId, { partner_comment: 'Second text' });
    expect({ status: response.status, body: response.body }).toEqual({ status: 200, body: OK });
    const rows = await comments(orderId);
    expect(rows).toEqual([
      expect.objectContaining({ id: first.id, user_name: alice.userName, partner_comment: 'Second text' }),
    ]);
    expect(rows[0].created_at).toEqual(first.created_at);
    expect(rows[0].updated_at.getTime()).toBeGreaterThan(first.updated_at.getTime());
    expect((await orderUpdatedAt(orderId)).getTime()).toBeGreaterThan(orderBefore.getTime());
  });

  it('adds a second comment when another user of the company comments', async () => {
    const orderId = await placeOrder(alice);
    await comment(alice, orderId, { partner_comment: 'From Alice' }).expect(200, OK);
    await comment(bob, orderId, { partner_comment: 'From Bob' }).expect(200, OK);
    expect((await comments(orderId)).map((row) => [row.user_name, row.partner_comment])).toEqual([
      [alice.userName, 'From Alice'],
      [bob.userName, 'From Bob'],
    ]);
    const single = await api().get(`/api/v2/order/${orderId}`).set('Authorization', bearer(alice.token));
    expect(single.body.comments).toHaveLength(2);
  });

  it('accepts a comment of exactly 5000 characters', async () => {
    const orderId = await placeOrder(alice);
    await comment(alice, orderId, { partner_comment: 'c'.repeat(5000) }).expect(200, OK);
    expect((await comments(orderId))[0].partner_comment).toHaveLength(5000);
  });

  it.each([
    ['a missing comment', {}, 'The partner comment field is required.'],
    ['an empty comment', { partner_comment: '' }, 'The partner comment field is required.'],
    ['a blank comment', { partner_comment: '  \t ' }, 'The partner comment field is required.'],
    ['a null comment', { partner_comment: null }, 'The partner comment field is required.'],
    ['a number', { partner_comment: 5 }, 'The partner comment must be a string.'],
    ['an object', { partner_comment: { text: 'x' } }, 'The partner comment must be a string.'],
    [
      '5001 characters',
      { partner_comment: 'c'.repeat(5001) },
      'The partner comment may not be greater than 5000 characters.',
    ],
  ])('refuses %s with 400 and a single message string, storing nothing', async (_case, body, message) => {
    const orderId = await placeOrder(alice);
    const updatedAt = await orderUpdatedAt(orderId);
    const audits = await countRows('audit_events');
    const response = await comment(alice, orderId, body);
    expect({ status: response.status, body: response.body }).toEqual({ status: 400, body: invalid(message) });
    expect(await comments(orderId)).toEqual([]);
    expect(await orderUpdatedAt(orderId)).toEqual(updatedAt);
    expect(await countRows('audit_events')).toBe(audits);
  });

  it("answers an unknown, non-numeric, huge or another company's order with the same 404, and changes nothing", async () => {
    const foreign = await placeOrder(stranger);
    const updatedAt = await orderUpdatedAt(foreign);
    const rows = await countRows('order_comments');
    const audits = await countRows('audit_events');
    for (const id of ['98765432', 'abc', '99999999999', String(foreign)]) {
      const response = await comment(alice, id, { partner_comment: 'Sneaky' });
      expect({ id, status: response.status, body: response.body }).toEqual({
        id,
        status: 404,
        body: NOT_FOUND,
      });
    }
    expect(await countRows('order_comments')).toBe(rows);
    expect(await countRows('audit_events')).toBe(audits);
    expect(await orderUpdatedAt(foreign)).toEqual(updatedAt);
  });

  it("answers another company's order with 404 even when the comment is invalid", async () => {
    const foreign = await placeOrder(stranger);
    const response = await comment(alice, foreign, {});
    expect({ status: response.status, body: response.body }).toEqual({ status: 404, body: NOT_FOUND });
  });

  it('records order.comment_added then order.comment_replaced with the token, never the text', async () => {
    const orderId = await placeOrder(alice);
    const text = unique('private-comment-text');
    const before = await countRows('audit_events');
    await comment(alice, orderId, { partner_comment: text }).expect(200, OK);
    await comment(alice, orderId, { partner_comment: `${text}-v2` }).expect(200, OK);
    expect(await countRows('audit_events')).toBe(before + 2);
    const events = await service.db.query('SELECT * FROM audit_events ORDER BY id DESC LIMIT 2');
    const common = {
      token_id: alice.tokenId,
      user_name: alice.userName,
      company_id: alice.companyId,
      changed_fields: expect.any(Array),
    };
    expect(events.rows).toEqual([
      expect.objectContaining({ ...common, action: 'order.comment_replaced' }),
      expect.objectContaining({ ...common, action: 'order.comment_added' }),
    ]);
    const all = JSON.stringify((await service.db.query('SELECT * FROM audit_events')).rows);
    expect(all).not.toContain(text);
  });
});
