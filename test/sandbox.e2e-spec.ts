import request from 'supertest';
import { issueAdminToken, startApp, type TestApp } from './harness/app';
import { eventually } from './harness/eventually';
import { type Body, Fixtures, orderBody, type Partner } from './harness/factories';
import {
  hasValidSignature,
  startWebhookReceiver,
  type WebhookReceiver,
  byEventId,
  type EventBody,
  parseEvent,
} from './harness/webhook-receiver';

const API_DATETIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d$/;
const NOT_TEST = { message: 'Only test orders can be simulated.' };
const NOT_FOUND = { message: 'Order not found.' };

describe('the partner sandbox: POST /order/{id}/simulate (CONTRACT §4.9)', () => {
  let service: TestApp;
  let receiver: WebhookReceiver;
  let admin: string;
  let logisticsToken: string;
  let fixtures: Fixtures;
  let partner: Partner;
  let productId: number;

  const api = () => request(service.url);
  const as = (token: string) => ({ Authorization: `Bearer ${token}` });
  const place = async (overrides: Body = { test: true }, owner = partner): Promise<number> => {
    const response = await api()
      .post('/api/v2/order')
      .set(as(owner.token))
      .send(orderBody(productId, overrides));
    expect(response.status).toBe(201);
    return Number(response.body.orders[0].order_id);
  };
  const simulate = (id: number | string, to: unknown, headers: Record<string, string> = {}) =>
    api()
      .post(`/api/v2/order/${id}/simulate`)
      .set({ ...as(partner.token), ...headers })
      .send({ to });
  const eventsOf = async (id: number) =>
    (
      await service.db.query(
        `SELECT type, data FROM events WHERE subject_type = 'order' AND order_id = $1 ORDER BY id`,
        [id],
      )
    ).rows.map((row: { type: string; data: { state: string } }) => [row.type, row.data.state]);
  const stateOf = async (id: number) =>
    (await service.db.query('SELECT state, test, version FROM orders WHERE id = $1', [id])).rows[0] as {
      state: string;
      test: boolean;
      version: number;
    };

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    service = await startApp({
      env: {
        WEBHOOK_ALLOW_PRIVATE: 'true',
        WEBHOOK_POLL_INTERVAL_MS: '20',
        RATE_LIMIT_PER_MINUTE: '100000',
        ADMIN_RATE_LIMIT_PER_MINUTE: '100000',
      },
    });
    admin = await issueAdminToken(service);
    fixtures = new Fixtures(service.url, admin);
    partner = await fixtures.partner('SK');
    productId = (await fixtures.product()).id;
    logisticsToken = await fixtures.logisticsToken();
  });

  afterAll(async () => {
    await service.stop();
    await receiver.close();
  });

  it('takes a test order from TEST to COMPLETED: every event signed, in order, in the webhooks and the feed', async () => {
    const own = await fixtures.partner('SK');
    const endpoint = await api()
      .post('/api/v2/admin/webhooks')
      .set(as(admin))
      .send({ company_id: own.companyId, url: `${receiver.url}/sandbox` })
      .expect(201);
    const id = await place({ test: true }, own);

    const response = await api()
      .post(`/api/v2/order/${id}/simulate`)
      .set(as(own.token))
      .send({ to: 'COMPLETED' })
      .expect(200);
    const stored = await stateOf(id);
    expect(stored).toEqual({ state: 'COMPLETED', test: true, version: expect.any(Number) });
    expect(response.headers.etag).toBe(`"${stored.version}"`);
    const number = `TEST-${id}`;
    const link = `https://tracking.example.com/${number}`;
    expect(response.body).toMatchObject({
      order_id: id,
      state: 'COMPLETED',
      test: true,
      editable: false,
      final_completion_date: expect.stringMatching(API_DATETIME),
      trackings: [
        {
          tracking_number: number,
          status: 'Delivered',
          dispatch_date: expect.stringMatching(API_DATETIME),
          delivery_date: expect.stringMatching(API_DATETIME),
          tracking_link: link,
        },
      ],
      detailed_status: { status: 'Completed', location: 'Sandbox' },
      delivery_errors: [],
    });
    const got = await api().get(`/api/v2/order/${id}`).set(as(own.token)).expect(200);
    expect(got.body).toEqual(response.body);
    expect(got.headers.etag).toBe(response.headers.etag);

    const expected = [
      ['order.placed', 'TEST'],
      ['order.state_changed', 'SENT_TO_LOGISTICS'],
      ['order.detailed_status', 'SENT_TO_LOGISTICS'],
      ['order.tracking', 'DISPATCHED'],
      ['order.state_changed', 'DISPATCHED'],
      ['order.detailed_status', 'DISPATCHED'],
      ['order.tracking', 'DELIVERED'],
      ['order.state_changed', 'DELIVERED'],
      ['order.detailed_status', 'DELIVERED'],
      ['order.updated', 'COMPLETED'],
      ['order.state_changed', 'COMPLETED'],
      ['order.detailed_status', 'COMPLETED'],
    ];
    await receiver.waitFor(() => receiver.at('/sandbox').length === expected.length);
    const delivered = receiver.at('/sandbox');
    expect(delivered.every((webhook) => hasValidSignature(webhook, endpoint.body.secret))).toBe(true);
    const life = delivered.map(parseEvent).sort(byEventId);
    expect(life.map((event) => [event.type, event.data.state])).toEqual(expected);
    expect(life.map((event) => event.data.previous_state).filter(Boolean)).toEqual([
      'TEST',
      'SENT_TO_LOGISTICS',
      'DISPATCHED',
      'DELIVERED',
    ]);
    expect(life[3].data.tracking).toMatchObject({ tracking_number: number, delivery_date: null });
    expect(life[6].data).toMatchObject({ replaced: true, tracking: { tracking_link: link } });
    expect(life[9].data.changed_fields).toEqual(['final_completion_date']);

    let fed: EventBody[] = [];
    await eventually(
      async () => {
        fed = (await api().get('/api/v2/events').set(as(own.token)).expect(200)).body.data as EventBody[];
        return fed.length === expected.length;
      },
      () => `The feed has ${fed.length} events`,
    );
    expect(fed).toEqual(life);

    const audit = await service.db.query(
      `SELECT action, token_id FROM audit_events WHERE target_type = 'order' AND target_id = $1 ORDER BY id`,
      [String(id)],
    );
    expect(audit.rows.map((row: { action: string }) => row.action)).toEqual([
      'order.placed',
      'order.sent_to_logistics',
      'order.detailed_status_added',
      'order.tracking_added',
      'order.detailed_status_added',
      'order.tracking_replaced',
      'order.detailed_status_added',
      'order.logistics_updated',
      'order.detailed_status_added',
    ]);
    expect(new Set(audit.rows.map((row: { token_id: number }) => row.token_id))).toEqual(
      new Set([own.tokenId]),
    );
  });

  it('goes step by step across requests, keeps the dispatch date, and refuses to go back or past the end', async () => {
    const id = await place();
    expect((await simulate(id, 'SENT_TO_LOGISTICS').expect(200)).body.trackings).toEqual([]);
    const dispatched = (await simulate(id, 'DISPATCHED').expect(200)).body;
    const delivered = (await simulate(id, 'DELIVERED').expect(200)).body;
    expect(delivered.trackings).toHaveLength(1);
    expect(delivered.trackings[0].dispatch_date).toBe(dispatched.trackings[0].dispatch_date);
    expect(delivered.trackings[0].delivery_date).toMatch(API_DATETIME);
    expect(await simulate(id, 'DISPATCHED').expect(409)).toHaveProperty('body', {
      message: 'The order is DELIVERED: the sandbox cannot move it to DISPATCHED.',
    });
    await simulate(id, 'CANCELLED').expect(409, {
      message: 'The order is DELIVERED: the sandbox cannot move it to CANCELLED.',
    });
    await simulate(id, 'DELIVERED').expect(409, {
      message: 'The order is DELIVERED: the sandbox cannot move it to DELIVERED.',
    });
    expect((await stateOf(id)).state).toBe('DELIVERED');
  });

  it('cancels a TEST order as the partner cancel does, and a sent one with a Cancel delivery error', async () => {
    const fresh = await place();
    expect((await simulate(fresh, 'CANCELLED').expect(200)).body).toMatchObject({
      state: 'CANCELLED',
      delivery_errors: [],
      detailed_status: null,
    });
    expect(await eventsOf(fresh)).toEqual([
      ['order.placed', 'TEST'],
      ['order.state_changed', 'CANCELLED'],
    ]);
    const audit = await service.db.query(
      `SELECT action FROM audit_events WHERE target_type = 'order' AND target_id = $1 ORDER BY id`,
      [String(fresh)],
    );
    expect(audit.rows).toEqual([{ action: 'order.placed' }, { action: 'order.cancelled' }]);

    const sent = await place();
    await simulate(sent, 'DISPATCHED').expect(200);
    const cancelled = (await simulate(sent, 'CANCELLED').expect(200)).body;
    expect(cancelled).toMatchObject({
      state: 'CANCELLED',
      delivery_errors: [{ status: 'Cancelled', resolution: 'Cancel' }],
      detailed_status: { status: 'Cancelled' },
    });
    expect((await eventsOf(sent)).slice(-3)).toEqual([
      ['order.delivery_error', 'CANCELLED'],
      ['order.state_changed', 'CANCELLED'],
      ['order.detailed_status', 'CANCELLED'],
    ]);
    await simulate(sent, 'COMPLETED').expect(409, {
      message: 'The order is CANCELLED: the sandbox cannot move it to COMPLETED.',
    });
  });

  it('answers concurrent simulations as if sent one after the other: a 409 names the state the order is in, never an allowed move', async () => {
    const refusal = /^The order is ([A-Z_]+): the sandbox cannot move it to ([A-Z_]+)\.$/;
    const forbidden = (response: request.Response) => {
      const [, state, to] = refusal.exec(response.body.message as string) ?? [];
      return `${state} → ${to}`;
    };
    for (let round = 0; round < 3; round += 1) {
      const id = await place();
      const responses = await Promise.all(
        ['COMPLETED', 'COMPLETED', 'COMPLETED', 'COMPLETED'].map((to) => simulate(id, to)),
      );
      for (const response of responses) {
        if (response.status === 409) expect(forbidden(response)).toBe('COMPLETED → COMPLETED');
        else expect(response.status).toBe(200);
      }
      expect(responses.some((response) => response.status === 200)).toBe(true);
      expect((await eventsOf(id)).filter(([type]) => type === 'order.state_changed')).toEqual([
        ['order.state_changed', 'SENT_TO_LOGISTICS'],
        ['order.state_changed', 'DISPATCHED'],
        ['order.state_changed', 'DELIVERED'],
        ['order.state_changed', 'COMPLETED'],
      ]);

      const raced = await place();
      const [dispatched, cancelled] = await Promise.all([
        simulate(raced, 'DISPATCHED'),
        simulate(raced, 'CANCELLED'),
      ]);
      expect(cancelled.status).toBe(200);
      expect(cancelled.body.state).toBe('CANCELLED');
      if (dispatched.status === 409) expect(forbidden(dispatched)).toBe('CANCELLED → DISPATCHED');
      else expect(dispatched.status).toBe(200);
      expect((await stateOf(raced)).state).toBe('CANCELLED');
    }
  });

  it('keeps a simulated order away from logistics: not in the queue, every write refused', async () => {
    const id = await place();
    await simulate(id, 'DISPATCHED').expect(200);
    const logistics = (method: 'post' | 'put' | 'patch', path: string, body: Body = {}) =>
      api()[method](`/api/v2/logistics/orders/${id}${path}`).set(as(logisticsToken)).send(body);
    await logistics('post', '/sent').expect(409, { message: 'A test order is never sent to logistics.' });
    const refused = { message: 'A test order is never processed by logistics.' };
    await logistics('put', '/trackings/REAL-1', { delivery_date: '2026-11-22T09:00' }).expect(409, refused);
    await logistics('post', '/detailed-statuses', {
      status: 'Out for delivery',
      status_date: '2026-11-22T07:30',
    }).expect(409, refused);
    await logistics('post', '/delivery-errors', {
      status: 'Lost',
      date: '2026-11-22T07:30',
      resolution: 'Cancel',
    }).expect(409, refused);
    await logistics('patch', '', { serial_number: 'SN-1' }).expect(409, refused);
    const queue = await api()
      .get('/api/v2/logistics/orders?state=DISPATCHED&per_page=25')
      .set(as(logisticsToken))
      .expect(200);
    const queued = (queue.body as { data: { order_id: number }[] }).data.map((entry) => entry.order_id);
    expect(queued).not.toContain(id);
    expect(await stateOf(id)).toMatchObject({ state: 'DISPATCHED', test: true });
  });

  it('refuses a real order, an unknown, foreign or malformed id, a bad target and other roles', async () => {
    const real = await place({ test: false });
    await simulate(real, 'SENT_TO_LOGISTICS').expect(409, NOT_TEST);
    expect(await stateOf(real)).toMatchObject({ state: 'PLACED', version: 1 });
    expect(await eventsOf(real)).toEqual([['order.placed', 'PLACED']]);

    const other = await fixtures.partner('SK');
    const foreign = await place({ test: true }, other);
    await simulate(foreign, 'DELIVERED').expect(404, NOT_FOUND);
    await simulate(999_999_999, 'DELIVERED').expect(404, NOT_FOUND);
    await simulate('abc', 'DELIVERED').expect(404, NOT_FOUND);
    expect((await stateOf(foreign)).state).toBe('TEST');

    const id = await place();
    for (const to of ['PLACED', 'TEST', '', 7, undefined]) {
      const bad = await simulate(id, to);
      expect(bad.status).toBe(400);
      expect(Object.keys(bad.body.errors)).toEqual(['to']);
    }
    await api()
      .post(`/api/v2/order/${id}/simulate`)
      .set(as(logisticsToken))
      .send({ to: 'DELIVERED' })
      .expect(403, { message: 'Forbidden.' });
    expect((await stateOf(id)).state).toBe('TEST');
  });

  it('carries a simulation out once per Idempotency-Key, answers the moved order, and replays it sealed at rest', async () => {
    const id = await place();
    const key = `simulate-${id}`;
    const first = await simulate(id, 'DELIVERED', { 'Idempotency-Key': key }).expect(200);
    const stored = await stateOf(id);
    expect(first.body).toMatchObject({ order_id: id, state: 'DELIVERED', editable: false });
    expect(first.headers.etag).toBe(`"${stored.version}"`);
    const read = await api().get(`/api/v2/order/${id}`).set(as(partner.token)).expect(200);
    expect(first.body).toEqual(read.body);
    const events = await eventsOf(id);
    const again = await simulate(id, 'DELIVERED', { 'Idempotency-Key': key }).expect(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.text).toBe(first.text);
    expect(again.headers.etag).toBe(first.headers.etag);
    expect(await eventsOf(id)).toEqual(events);
    const row = await service.db.query('SELECT * FROM idempotency_keys WHERE key = $1', [key]);
    const text = JSON.stringify(row.rows);
    expect(text).not.toContain(read.body.login);
    expect(text).not.toContain(read.body.password);
    expect(row.rows[0].response).toMatch(/^v1:/);
    await simulate(id, 'COMPLETED', { 'Idempotency-Key': key }).expect(422);
    expect((await stateOf(id)).state).toBe('DELIVERED');
  });

  it('applies If-Match: a stale version is refused with nothing changed, the current one is accepted', async () => {
    const id = await place();
    const read = await api().get(`/api/v2/order/${id}`).set(as(partner.token)).expect(200);
    await api().post(`/api/v2/order/${id}/update`).set(as(partner.token)).send({ city: 'Nitra' }).expect(200);
    const stale = await simulate(id, 'DELIVERED', { 'If-Match': read.headers.etag });
    expect(stale.status).toBe(412);
    expect(await stateOf(id)).toMatchObject({ state: 'TEST', version: 2 });
    const moved = await simulate(id, 'SENT_TO_LOGISTICS', { 'If-Match': '"2"' }).expect(200);
    expect(moved.headers.etag).toBe(`"${(await stateOf(id)).version}"`);
    await simulate(id, 'DISPATCHED', { 'If-Match': 'three' }).expect(400);
  });
});
