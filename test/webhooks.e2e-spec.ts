import { spawn } from 'node:child_process';
import { join } from 'node:path';
import request from 'supertest';
import { issueAdminToken, startApp, type TestApp } from './harness/app';
import { eventually } from './harness/eventually';
import { type Body, Fixtures, orderBody, type Partner } from './harness/factories';
import {
  FAST_DISPATCH,
  hasValidSignature,
  NO_ANSWER,
  type ReceivedWebhook,
  startWebhookReceiver,
  type WebhookReceiver,
  byEventId,
  type EventBody,
  parseEvent,
} from './harness/webhook-receiver';

const ofOrder = (received: ReceivedWebhook[], orderId: number) =>
  received.map(parseEvent).filter((event) => event.data.order_id === orderId);

/**
 * The events of one order a receiver got, each once: delivery is at least once (a send that outlives
 * WEBHOOK_TIMEOUT_MS on a loaded machine is sent again, with the same webhook-id), and receivers deduplicate by it.
 */
const onceEach = (received: ReceivedWebhook[], orderId: number) => [
  ...new Map(ofOrder(received, orderId).map((event) => [event.id, event] as const)).values(),
];

/** A private address is refused, and the message names the switch that allows it for local testing. */
const PRIVATE_REFUSED =
  'The url must not point to a loopback, private or link-local address (for local testing, start the service with WEBHOOK_ALLOW_PRIVATE=true).';

describe('webhooks and the events feed (CONTRACT §4.8, §5)', () => {
  let service: TestApp;
  let receiver: WebhookReceiver;
  let admin: string;
  let logisticsToken: string;
  let fixtures: Fixtures;
  let productId: number;

  const api = () => request(service.url);
  const as = (token: string) => ({ Authorization: `Bearer ${token}` });
  const place = async (partner: Partner, overrides: Body = {}): Promise<number> => {
    const response = await api()
      .post('/api/v2/order')
      .set(as(partner.token))
      .send(orderBody(productId, overrides));
    expect(response.status).toBe(201);
    return Number(response.body.orders[0].order_id);
  };
  const logistics = (method: 'post' | 'put' | 'patch', path: string, body: Body = {}) =>
    api()[method](`/api/v2/logistics/orders${path}`).set(as(logisticsToken)).send(body);
  async function register(companyId: number, path: string, extra: Body = {}) {
    const response = await api()
      .post('/api/v2/admin/webhooks')
      .set(as(admin))
      .send({ company_id: companyId, url: `${receiver.url}${path}`, ...extra });
    expect(response.status).toBe(201);
    return response.body as { id: number; secret: string; active: boolean; url: string };
  }
  /**
   * The feed once it holds `count` events: an event is listed once every transaction that started before it
   * has finished, in any database of the cluster (parallel specs share it), so a client reads until it is there.
   */
  async function feedOf(partner: Partner, count: number): Promise<EventBody[]> {
    let events: EventBody[] = [];
    await eventually(
      async () => {
        events = (await api().get('/api/v2/events').set(as(partner.token)).expect(200)).body
          .data as EventBody[];
        return events.length >= count;
      },
      () => `The feed has ${events.length} events, not ${count}`,
    );
    return events;
  }
  const deliveriesOf = async (endpointId: number) =>
    (await api().get(`/api/v2/admin/webhooks/${endpointId}/deliveries`).set(as(admin)).expect(200)).body
      .data as {
      event_id: string;
      status: string;
      attempt_count: number;
      attempts: { status_code: number | null; error: string | null; duration_ms: number }[];
    }[];

  beforeAll(async () => {
    receiver = await startWebhookReceiver((incoming, before) => {
      if (incoming.path === '/gone') return 410;
      if (incoming.path === '/hang') return NO_ANSWER;
      if (incoming.path === '/redirect') return 302;
      if (incoming.path === '/flaky') {
        const tries = before.filter(
          (entry) => entry.headers['webhook-id'] === incoming.headers['webhook-id'],
        );
        return tries.length < 2 ? 500 : 200;
      }
      return 200;
    });
    service = await startApp({ env: FAST_DISPATCH });
    admin = await issueAdminToken(service);
    fixtures = new Fixtures(service.url, admin);
    productId = (await fixtures.product()).id;
    logisticsToken = (
      await api()
        .post('/api/v2/admin/tokens')
        .set(as(admin))
        .send({ role: 'logistics', user_name: 'courier' })
    ).body.token;
  });

  afterAll(async () => {
    await service.stop();
    await receiver.close();
  });

  it('registers an endpoint with a whsec_ secret shown once, stored sealed, never listed, and audited', async () => {
    const partner = await fixtures.partner();
    const created = await register(partner.companyId, '/register');
    expect(created).toMatchObject({
      company_id: partner.companyId,
      active: true,
      url: `${receiver.url}/register`,
    });
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const listed = await api()
      .get(`/api/v2/admin/webhooks?company_id=${partner.companyId}`)
      .set(as(admin))
      .expect(200);
    expect(listed.body.data).toEqual([expect.objectContaining({ id: created.id })]);
    expect(JSON.stringify(listed.body)).not.toContain(created.secret);
    const stored = await service.db.query('SELECT secret FROM webhook_endpoints WHERE id = $1', [created.id]);
    expect(stored.rows[0].secret).toMatch(/^v1:/);
    expect(stored.rows[0].secret).not.toContain(created.secret.slice(6));
    const audit = await service.db.query(
      `SELECT action, changed_fields FROM audit_events WHERE target_type = 'webhook' AND target_id = $1`,
      [String(created.id)],
    );
    expect(audit.rows).toEqual([{ action: 'webhook.created', changed_fields: ['secret', 'url'] }]);
  });

  it('keeps a secret the admin gives, and refuses a malformed one or an unknown company', async () => {
    const partner = await fixtures.partner();
    const secret = `whsec_${Buffer.alloc(24, 9).toString('base64')}`;
    expect((await register(partner.companyId, '/given', { secret })).secret).toBe(secret);
    const bad = await api()
      .post('/api/v2/admin/webhooks')
      .set(as(admin))
      .send({ company_id: partner.companyId, url: `${receiver.url}/x`, secret: 'not-a-secret' });
    expect(bad.status).toBe(400);
    expect(bad.body.errors).toEqual({
      secret: ['The secret must be whsec_ and the base64 of 24 to 64 bytes.'],
    });
    const unknown = await api()
      .post('/api/v2/admin/webhooks')
      .set(as(admin))
      .send({ company_id: 999999, url: `${receiver.url}/x` });
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors).toEqual({ company_id: ['No company has this id.'] });
  });

  it('delivers each event type of an order’s life, signed, in the Standard Webhooks shape, without device credentials', async () => {
    const partner = await fixtures.partner();
    const { secret } = await register(partner.companyId, '/life');
    const password = `pw-SECRET-life-${Date.now()}`;
    const id = await place(partner, { password, login: 'device-life' });
    await api().post(`/api/v2/order/${id}/update`).set(as(partner.token)).send({ city: 'Nitra' }).expect(200);
    await api()
      .post(`/api/v2/order/${id}/comment`)
      .set(as(partner.token))
      .send({ partner_comment: 'Ring twice.' })
      .expect(200);
    await logistics('post', `/${id}/sent`).expect(200);
    await logistics('put', `/${id}/trackings/PKG1`, {
      status: 'Picked up',
      dispatch_date: '2026-11-21T08:00',
    }).expect(201);
    await logistics('post', `/${id}/detailed-statuses`, {
      status: 'Out for delivery',
      status_date: '2026-11-22T07:30',
    }).expect(201);
    await logistics('post', `/${id}/delivery-errors`, {
      status: 'Nobody home',
      date: '2026-11-22T08:00',
      resolution: 'Information',
    }).expect(201);
    await logistics('put', `/${id}/trackings/PKG1`, {
      status: 'Delivered',
      dispatch_date: '2026-11-21T08:00',
      delivery_date: '2026-11-22T09:30',
    }).expect(200);
    await logistics('patch', `/${id}`, {
      serial_number: 'SN-1',
      final_completion_date: '2026-11-23T12:00',
    }).expect(200);
    const cancelled = await place(partner);
    await api().post(`/api/v2/order/${cancelled}/cancel`).set(as(partner.token)).expect(200);

    await receiver.waitFor(
      (received) => onceEach(received, id).length === 12 && onceEach(received, cancelled).length === 2,
    );
    const delivered = receiver.at('/life');
    for (const webhook of delivered) {
      expect(hasValidSignature(webhook, secret)).toBe(true);
      expect(webhook.headers['content-type']).toBe('application/json');
      expect(Math.abs(Number(webhook.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(60);
      const event = parseEvent(webhook);
      expect(Object.keys(event)).toEqual(['id', 'type', 'timestamp', 'data']);
      expect(event.id).toBe(webhook.headers['webhook-id']);
      expect(event.id).toMatch(/^evt_\d+$/);
      expect(event.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      expect(webhook.body).not.toContain(password);
      expect(webhook.body).not.toContain('device-life');
    }
    const life = onceEach(delivered, id).sort(byEventId);
    expect(life.map((event) => [event.type, event.data.state])).toEqual([
      ['order.placed', 'PLACED'],
      ['order.updated', 'PLACED'],
      ['order.comment', 'PLACED'],
      ['order.state_changed', 'SENT_TO_LOGISTICS'],
      ['order.tracking', 'DISPATCHED'],
      ['order.state_changed', 'DISPATCHED'],
      ['order.detailed_status', 'DISPATCHED'],
      ['order.delivery_error', 'DISPATCHED'],
      ['order.tracking', 'DELIVERED'],
      ['order.state_changed', 'DELIVERED'],
      ['order.updated', 'COMPLETED'],
      ['order.state_changed', 'COMPLETED'],
    ]);
    expect(life[0].data).toEqual({
      order_id: id,
      order_ref: `SK-${String(id).padStart(7, '0')}`,
      state: 'PLACED',
      order_type: 'REGULAR',
      test: false,
    });
    expect(life[1].data.changed_fields).toEqual(['city']);
    expect(life[3].data.previous_state).toBe('PLACED');
    expect(life[4].data.tracking).toEqual({
      status_date: null,
      status: 'Picked up',
      dispatch_date: '2026-11-21T08:00',
      delivery_date: null,
      tracking_number: 'PKG1',
      tracking_link: null,
    });
    expect(life[7].data.delivery_error).toMatchObject({ resolution: 'Information', status: 'Nobody home' });
    expect(life[10].data.changed_fields).toEqual(['final_completion_date', 'serial_number']);
    expect(
      onceEach(delivered, cancelled).map((event) => [event.type, event.data.previous_state ?? null]),
    ).toEqual(
      expect.arrayContaining([
        ['order.placed', null],
        ['order.state_changed', 'PLACED'],
      ]),
    );

    const distinct = [...onceEach(delivered, id), ...onceEach(delivered, cancelled)];
    const fed = await feedOf(partner, distinct.length);
    expect(fed.map((event) => event.id)).toEqual(distinct.sort(byEventId).map((event) => event.id));
    expect(fed.find((event) => event.id === life[0].id)).toEqual(life[0]);
    const rest = await api().get(`/api/v2/events?after=${fed[2].id}`).set(as(partner.token)).expect(200);
    expect(rest.body.data).toEqual(fed.slice(3));
    const none = await api()
      .get(`/api/v2/events?after=${fed[fed.length - 1].id}`)
      .set(as(partner.token))
      .expect(200);
    expect(none.body).toEqual({ data: [] });
  });

  it("keeps each company's feed to itself: another company's event id is refused like an unknown one", async () => {
    const mine = await fixtures.partner();
    const theirs = await fixtures.partner();
    await place(theirs);
    const theirFeed = await feedOf(theirs, 1);
    expect(theirFeed).toHaveLength(1);
    expect((await api().get('/api/v2/events').set(as(mine.token)).expect(200)).body).toEqual({ data: [] });
    const foreign = await api().get(`/api/v2/events?after=${theirFeed[0].id}`).set(as(mine.token));
    const unknown = await api().get('/api/v2/events?after=evt_999999999').set(as(mine.token));
    expect(foreign.status).toBe(400);
    expect(foreign.body).toEqual(unknown.body);
    expect(unknown.body).toEqual({
      message: 'Bad request.',
      errors: { after: ['No event of yours has this id.'] },
    });
    const malformed = await api().get('/api/v2/events?after=123').set(as(mine.token));
    expect(malformed.status).toBe(400);
    expect(malformed.body.errors).toEqual({ after: ['The after must be an event id such as evt_1042.'] });
  });

  it('retries a receiver that fails twice and delivers on the third try, each attempt in the log', async () => {
    const partner = await fixtures.partner();
    const endpoint = await register(partner.companyId, '/flaky');
    const id = await place(partner);
    await receiver.waitFor((received) => ofOrder(received, id).length === 3);
    const tries = receiver.at('/flaky').filter((webhook) => parseEvent(webhook).data.order_id === id);
    expect(tries.map((webhook) => webhook.status)).toEqual([500, 500, 200]);
    expect(new Set(tries.map((webhook) => webhook.headers['webhook-id'])).size).toBe(1);
    expect(tries.every((webhook) => hasValidSignature(webhook, endpoint.secret))).toBe(true);
    let deliveries = await deliveriesOf(endpoint.id);
    await eventually(
      async () => (deliveries = await deliveriesOf(endpoint.id))[0]?.status === 'succeeded',
      () => `The delivery is still ${deliveries[0]?.status}`,
    );
    expect(deliveries).toHaveLength(1);
    expect(deliveries[0]).toMatchObject({
      status: 'succeeded',
      attempt_count: 3,
      event_id: tries[0].headers['webhook-id'],
    });
    expect(deliveries[0].attempts.map((attempt) => [attempt.status_code, attempt.error])).toEqual([
      [500, 'HTTP 500 Internal Server Error'],
      [500, 'HTTP 500 Internal Server Error'],
      [200, null],
    ]);
  });

  it('gives a receiver WEBHOOK_TIMEOUT_MS to answer, and counts a redirect as a failure, retrying both', async () => {
    const partner = await fixtures.partner();
    const hanging = await register(partner.companyId, '/hang');
    const redirecting = await register(partner.companyId, '/redirect');
    await place(partner);
    let attempts: Record<
      string,
      { status_code: number | null; error: string | null; duration_ms: number }[]
    > = {};
    await eventually(
      async () => {
        attempts = {
          hang: (await deliveriesOf(hanging.id))[0]?.attempts ?? [],
          redirect: (await deliveriesOf(redirecting.id))[0]?.attempts ?? [],
        };
        return attempts.hang.length >= 1 && attempts.redirect.length >= 2;
      },
      () => `Attempts so far: ${JSON.stringify(attempts)}`,
    );
    expect(attempts.hang[0]).toMatchObject({ status_code: null, error: 'No answer within 1000 ms' });
    expect(attempts.hang[0].duration_ms).toBeGreaterThanOrEqual(1000);
    expect(attempts.redirect.slice(0, 2).map((attempt) => [attempt.status_code, attempt.error])).toEqual([
      [302, 'HTTP 302 Found'],
      [302, 'HTTP 302 Found'],
    ]);
    expect(receiver.received.filter((webhook) => webhook.path === '/elsewhere')).toEqual([]);
    await api().delete(`/api/v2/admin/webhooks/${hanging.id}`).set(as(admin)).expect(200);
    await api().delete(`/api/v2/admin/webhooks/${redirecting.id}`).set(as(admin)).expect(200);
  });

  it('stops sending to an endpoint that answers 410 Gone', async () => {
    const partner = await fixtures.partner();
    const endpoint = await register(partner.companyId, '/gone');
    await place(partner);
    await receiver.waitFor((received) => received.some((webhook) => webhook.path === '/gone'));
    const listed = async () =>
      (
        (await api().get(`/api/v2/admin/webhooks?company_id=${partner.companyId}`).set(as(admin)).expect(200))
          .body as { data: { active: boolean }[] }
      ).data[0];
    await eventually(
      async () => !(await listed()).active,
      () => 'The endpoint is still active',
    );
    expect(await listed()).toMatchObject({
      active: false,
      disabled_reason: 'The receiver answered 410 Gone.',
    });
    await place(partner);
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(receiver.at('/gone')).toHaveLength(1);
    expect((await deliveriesOf(endpoint.id)).map((delivery) => delivery.status)).toEqual(['failed']);
  });

  it('never sends or lists an event for a change that was rolled back', async () => {
    const partner = await fixtures.partner();
    await register(partner.companyId, '/rollback');
    const id = await place(partner);
    await service.db.query(`
      CREATE FUNCTION fail_update() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'injected failure'; END $$;
      CREATE TRIGGER fail_update BEFORE INSERT ON audit_events
        FOR EACH ROW WHEN (NEW.action = 'order.updated') EXECUTE FUNCTION fail_update();`);
    try {
      expect(
        (await api().post(`/api/v2/order/${id}/update`).set(as(partner.token)).send({ city: 'Nitra' }))
          .status,
      ).toBe(500);
    } finally {
      await service.db.query('DROP TRIGGER fail_update ON audit_events; DROP FUNCTION fail_update()');
    }
    await api()
      .post(`/api/v2/order/${id}/comment`)
      .set(as(partner.token))
      .send({ partner_comment: 'After the failure.' })
      .expect(200);
    await receiver.waitFor((received) =>
      ofOrder(received, id).some((event) => event.type === 'order.comment'),
    );
    expect(
      ofOrder(receiver.at('/rollback'), id)
        .map((event) => event.type)
        .sort(),
    ).toEqual(['order.comment', 'order.placed']);
    const feed = await feedOf(partner, 2);
    expect(feed.map((event) => event.type)).toEqual(['order.placed', 'order.comment']);
    const stored = await service.db.query(
      `SELECT type FROM events WHERE subject_type = 'order' AND order_id = $1 ORDER BY id`,
      [id],
    );
    expect(stored.rows).toEqual([{ type: 'order.placed' }, { type: 'order.comment' }]);
  });

  it('takes an event written as the version before the generic outbox writes it, so its instances keep serving during the migration', async () => {
    const partner = await fixtures.partner();
    const id = await place(partner);
    const [placed] = await feedOf(partner, 1);
    const { order_id, order_ref, state } = placed.data as Record<string, unknown>;
    await service.db.query(
      `INSERT INTO events (company_id, order_id, type, data, transaction_id)
       VALUES ($1, $2, 'order.updated', $3, pg_current_xact_id()::text::bigint)`,
      [partner.companyId, id, JSON.stringify({ order_id, order_ref, state, changed_fields: ['city'] })],
    );
    const feed = await feedOf(partner, 2);
    expect(feed.map((event) => event.type)).toEqual(['order.placed', 'order.updated']);
    const stored = await service.db.query(`SELECT subject_type FROM events WHERE order_id = $1 ORDER BY id`, [
      id,
    ]);
    expect(stored.rows).toEqual([{ subject_type: 'order' }, { subject_type: 'order' }]);
  });

  it('places an order whole or not at all: a delivery that cannot be written leaves no order, audit row or event', async () => {
    const partner = await fixtures.partner();
    const endpoint = await register(partner.companyId, '/atomic');
    const counts = async (): Promise<Record<string, string>> =>
      (
        await service.db.query<Record<string, string>>(
          `SELECT (SELECT count(*) FROM orders WHERE company_id = $1) AS orders,
                  (SELECT count(*) FROM audit_events WHERE company_id = $1 AND action = 'order.placed') AS audit,
                  (SELECT count(*) FROM events WHERE company_id = $1) AS events,
                  (SELECT count(*) FROM webhook_deliveries WHERE endpoint_id = $2) AS deliveries`,
          [partner.companyId, endpoint.id],
        )
      ).rows[0];
    const before = await counts();
    await service.db.query(`
      CREATE FUNCTION fail_delivery() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'injected failure'; END $$;
      CREATE TRIGGER fail_delivery BEFORE INSERT ON webhook_deliveries
        FOR EACH ROW WHEN (NEW.endpoint_id = ${Number(endpoint.id)}) EXECUTE FUNCTION fail_delivery();`);
    try {
      const response = await api().post('/api/v2/order').set(as(partner.token)).send(orderBody(productId));
      expect(response.status).toBe(500);
    } finally {
      await service.db.query(
        'DROP TRIGGER fail_delivery ON webhook_deliveries; DROP FUNCTION fail_delivery()',
      );
    }
    expect(await counts()).toEqual(before);
    const id = await place(partner);
    const stored = await service.db.query<{ data: string; audit: string }>(
      `SELECT e.data::text AS data,
              (SELECT target_id FROM audit_events a WHERE a.action = 'order.placed' AND a.target_id = $2) AS audit
       FROM events e WHERE e.subject_type = 'order' AND e.order_id = $1`,
      [id, String(id)],
    );
    const ref = `${partner.site}-${String(id).padStart(7, '0')}`;
    expect(stored.rows).toEqual([
      {
        data: JSON.stringify({
          order_id: id,
          order_ref: ref,
          state: 'PLACED',
          order_type: 'REGULAR',
          test: false,
        }),
        audit: String(id),
      },
    ]);
  });

  it('deletes an endpoint: nothing more is sent, it leaves the list, and it and its log are missing', async () => {
    const partner = await fixtures.partner();
    const endpoint = await register(partner.companyId, '/deleted');
    await place(partner);
    await receiver.waitFor((received) => received.some((webhook) => webhook.path === '/deleted'));
    // Received is not yet recorded: a delete in between would cancel the delivery the dispatcher is finishing.
    await eventually(
      async () => (await deliveriesOf(endpoint.id)).some((delivery) => delivery.status === 'succeeded'),
      () => 'the delivery to /deleted was never recorded as succeeded',
    );
    const deleted = await api().delete(`/api/v2/admin/webhooks/${endpoint.id}`).set(as(admin)).expect(200);
    expect(deleted.body).toMatchObject({ id: endpoint.id, active: false, deleted_at: expect.any(String) });
    expect(deleted.body.secret).toBeUndefined();
    await api().delete(`/api/v2/admin/webhooks/${endpoint.id}`).set(as(admin)).expect(404);
    const listed = await api()
      .get(`/api/v2/admin/webhooks?company_id=${partner.companyId}`)
      .set(as(admin))
      .expect(200);
    expect(listed.body.data).toEqual([]);
    await place(partner);
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(receiver.at('/deleted')).toHaveLength(1);
    const kept = await service.db.query('SELECT status FROM webhook_deliveries WHERE endpoint_id = $1', [
      endpoint.id,
    ]);
    expect(kept.rows).toEqual([{ status: 'succeeded' }]);
    await api()
      .get(`/api/v2/admin/webhooks/${endpoint.id}`)
      .set(as(admin))
      .expect(404, { message: 'Webhook not found.' });
    await api()
      .get(`/api/v2/admin/webhooks/${endpoint.id}/deliveries`)
      .set(as(admin))
      .expect(404, { message: 'Webhook not found.' });
    await api()
      .get('/api/v2/admin/webhooks/999999/deliveries')
      .set(as(admin))
      .expect(404, { message: 'Webhook not found.' });
  });

  it("the README's example receiver verifies real deliveries and refuses a forged one", async () => {
    const partner = await fixtures.partner();
    const secret = `whsec_${Buffer.alloc(32, 5).toString('base64')}`;
    const example = spawn(process.execPath, [join(__dirname, '..', 'examples', 'webhook-receiver.mjs')], {
      env: { PATH: process.env.PATH, WEBHOOK_SECRET: secret, PORT: '0' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let printed = '';
    example.stdout.on('data', (chunk: Buffer) => (printed += chunk.toString()));
    const lines = () =>
      printed
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as Record<string, unknown>);
    try {
      await eventually(
        () => lines().some((line) => line.listening),
        () => 'The example did not start',
      );
      const url = `http://127.0.0.1:${lines()[0].listening as number}/`;
      await api()
        .post('/api/v2/admin/webhooks')
        .set(as(admin))
        .send({ company_id: partner.companyId, url, secret })
        .expect(201);
      const id = await place(partner);
      await eventually(
        () => lines().some((line) => line.order_id === id),
        () => `The example printed: ${printed}`,
      );
      expect(lines().find((line) => line.order_id === id)).toMatchObject({
        verified: true,
        type: 'order.placed',
      });
      // fetch, not supertest: the e2e contract check reads the OpenAPI document of whatever supertest calls.
      const forged = await fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'webhook-id': 'evt_1',
          'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
          'webhook-signature': `v1,${Buffer.alloc(32).toString('base64')}`,
        },
        body: JSON.stringify({ id: 'evt_1', type: 'order.placed', data: { order_id: 1 } }),
      });
      expect(forged.status).toBe(400);
    } finally {
      example.kill();
    }
  });

  it('keeps the webhook routes to admins and the feed to partners', async () => {
    const partner = await fixtures.partner();
    await api().get('/api/v2/admin/webhooks').set(as(partner.token)).expect(403, { message: 'Forbidden.' });
    await api()
      .post('/api/v2/admin/webhooks')
      .set(as(logisticsToken))
      .send({ company_id: partner.companyId, url: 'https://hooks.example.com/' })
      .expect(403);
    await api().get('/api/v2/events').set(as(admin)).expect(403);
    await api().get('/api/v2/events').expect(401);
  });

  describe('without WEBHOOK_ALLOW_PRIVATE', () => {
    let strict: TestApp;

    beforeAll(async () => {
      strict = await startApp({
        env: { DATABASE_URL: service.databaseUrl, WEBHOOK_DISPATCHER: 'false' },
      });
    });

    afterAll(async () => {
      await strict.stop();
    });

    it.each([
      ['http://127.0.0.1:8080/hook', PRIVATE_REFUSED],
      ['http://localhost/hook', PRIVATE_REFUSED],
      ['http://[::1]/hook', PRIVATE_REFUSED],
      ['http://10.0.0.5/hook', PRIVATE_REFUSED],
      ['http://192.168.1.10/hook', PRIVATE_REFUSED],
      ['http://169.254.169.254/latest/meta-data', PRIVATE_REFUSED],
      ['ftp://hooks.example.com/', 'The url must use http or https.'],
      ['https://user:pw@hooks.example.com/', 'The url may not carry a user name or password.'],
      ['not a url', 'The url must be an absolute http or https URL.'],
    ])('refuses %s', async (url, message) => {
      const partner = await fixtures.partner();
      const response = await request(strict.url)
        .post('/api/v2/admin/webhooks')
        .set(as(admin))
        .send({ company_id: partner.companyId, url });
      expect(response.status).toBe(400);
      expect(response.body).toEqual({ message: 'Bad request.', errors: { url: [message] } });
    });
  });
});

describe('two dispatchers on one database', () => {
  let first: TestApp;
  let second: TestApp;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    first = await startApp({ env: FAST_DISPATCH });
    second = await startApp({ env: { ...FAST_DISPATCH, DATABASE_URL: first.databaseUrl } });
  });

  afterAll(async () => {
    await Promise.all([first.stop(), second.stop()]);
    await receiver.close();
  });

  it('deliver each of 300 events exactly once, signed, and share the work', async () => {
    const admin = await issueAdminToken(first);
    const fixtures = new Fixtures(first.url, admin);
    const partner = await fixtures.partner();
    const productId = (await fixtures.product()).id;
    const created = await request(first.url)
      .post('/api/v2/admin/webhooks')
      .set('Authorization', `Bearer ${admin}`)
      .send({ company_id: partner.companyId, url: `${receiver.url}/both` })
      .expect(201);
    const instances = [first, second];
    const auth = { Authorization: `Bearer ${partner.token}` };
    for (let batch = 0; batch < 10; batch += 1) {
      await Promise.all(
        Array.from({ length: 10 }, async (_, index) => {
          const via = instances[index % 2].url;
          const placed = await request(via)
            .post('/api/v2/order')
            .set(auth)
            .send(orderBody(productId))
            .expect(201);
          const id = Number(placed.body.orders[0].order_id);
          await request(instances[(index + 1) % 2].url)
            .post(`/api/v2/order/${id}/comment`)
            .set(auth)
            .send({ partner_comment: `Batch ${batch}` })
            .expect(200);
          await request(via)
            .post(`/api/v2/order/${id}/update`)
            .set(auth)
            .send({ city: `City ${batch}` })
            .expect(200);
        }),
      );
    }
    await receiver.waitFor((received) => received.length >= 300, 60_000);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const ids = receiver.received.map((webhook) => webhook.headers['webhook-id']);
    expect(ids).toHaveLength(300);
    expect(new Set(ids).size).toBe(300);
    expect(
      receiver.received.every((webhook) => hasValidSignature(webhook, created.body.secret as string)),
    ).toBe(true);
    const deliveries = await first.db.query(
      `SELECT status, attempt_count, count(*)::int AS n FROM webhook_deliveries GROUP BY status, attempt_count`,
    );
    expect(deliveries.rows).toEqual([{ status: 'succeeded', attempt_count: 1, n: 300 }]);
    const attemptsBy = (service: TestApp) =>
      service.logs().filter((line) => line.event === 'webhook_attempt').length;
    expect(attemptsBy(first) + attemptsBy(second)).toBe(300);
    expect(attemptsBy(first)).toBeGreaterThan(0);
    expect(attemptsBy(second)).toBeGreaterThan(0);
  });
});
