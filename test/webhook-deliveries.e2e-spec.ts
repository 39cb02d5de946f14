import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import request from 'supertest';
import { issueAdminToken, startApp, type TestApp } from './harness/app';
import { eventually } from './harness/eventually';
import { Fixtures, orderBody, type Partner } from './harness/factories';
import { FAST_DISPATCH, hasValidSignature } from './harness/webhook-receiver';

interface Attempt {
  number: number;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
  request_headers: Record<string, string> | null;
  response_headers: Record<string, string> | null;
  response_body: string | null;
  response_body_truncated: boolean;
}

interface Delivery {
  id: number;
  endpoint_id: number;
  event_id: string;
  event_type: string;
  status: string;
  request_body: string | null;
  attempts: Attempt[];
}

/** A receiver whose answer depends on the path: what each attempt gets back is what the log must keep. */
const ANSWERS: Record<string, { status: number; headers: Record<string, string>; body: string }> = {
  '/ok': {
    status: 200,
    headers: { 'content-type': 'application/json', 'x-trace': 'trace-42' },
    body: '{"received":true}',
  },
  // 10 KiB: only the first 4 KiB are kept; 'é' is two bytes, so byte 4096 cuts none of them in half.
  '/busy': {
    status: 503,
    headers: { 'content-type': 'text/plain; charset=utf-8', 'retry-after': '3600' },
    body: `busy ${'é'.repeat(2000)}${'x'.repeat(6000)}`,
  },
  '/chatty': {
    status: 200,
    headers: Object.fromEntries(
      Array.from({ length: 80 }, (_, index) => [`x-header-${index}`, 'v'.repeat(100)]),
    ),
    body: 'ok',
  },
};

describe('the delivery log keeps what each attempt sent and got back (CONTRACT §6)', () => {
  let service: TestApp;
  let receiver: Server;
  let receiverUrl: string;
  let admin: string;
  let fixtures: Fixtures;
  let productId: number;
  const received: { path: string; headers: IncomingHttpHeaders; body: string }[] = [];

  const api = () => request(service.url);
  const as = (token: string) => ({ Authorization: `Bearer ${token}` });
  const deliveries = (endpointId: number, query: Record<string, string> = {}) =>
    api().get(`/api/v2/admin/webhooks/${endpointId}/deliveries`).query(query).set(as(admin));
  const detail = (endpointId: number, deliveryId: number | string) =>
    api().get(`/api/v2/admin/webhooks/${endpointId}/deliveries/${deliveryId}`).set(as(admin));

  async function register(companyId: number, path: string) {
    const response = await api()
      .post('/api/v2/admin/webhooks')
      .set(as(admin))
      .send({ company_id: companyId, url: `${receiverUrl}${path}` });
    expect(response.status).toBe(201);
    return response.body as { id: number; secret: string };
  }

  async function place(partner: Partner): Promise<number> {
    const response = await api().post('/api/v2/order').set(as(partner.token)).send(orderBody(productId));
    expect(response.status).toBe(201);
    return Number(response.body.orders[0].order_id);
  }

  /** The endpoint's deliveries once `done` holds for them. */
  async function logOnce(endpointId: number, done: (rows: Delivery[]) => boolean): Promise<Delivery[]> {
    let rows: Delivery[] = [];
    await eventually(
      async () => {
        rows = (await deliveries(endpointId).expect(200)).body.data as Delivery[];
        return done(rows);
      },
      () => `The log is ${JSON.stringify(rows)}`,
    );
    return rows;
  }

  beforeAll(async () => {
    receiver = createServer((incoming, response) => {
      const chunks: Buffer[] = [];
      incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
      incoming.on('end', () => {
        const path = incoming.url ?? '/';
        received.push({ path, headers: incoming.headers, body: Buffer.concat(chunks).toString() });
        const answer = ANSWERS[path] ?? ANSWERS['/ok'];
        response.writeHead(answer.status, answer.headers).end(answer.body);
      });
    });
    receiver.listen(0, '127.0.0.1');
    await once(receiver, 'listening');
    const address = receiver.address();
    receiverUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    service = await startApp({ env: { ...FAST_DISPATCH, WEBHOOK_TIMEOUT_MS: '5000' } });
    admin = await issueAdminToken(service);
    fixtures = new Fixtures(service.url, admin);
    productId = (await fixtures.product()).id;
  });

  afterAll(async () => {
    await service.stop();
    await new Promise((resolve) => {
      receiver.close(resolve);
      receiver.closeAllConnections();
    });
  });

  it("returns each attempt's request and the receiver's status, headers and body, and the body sent once", async () => {
    const partner = await fixtures.partner();
    const endpoint = await register(partner.companyId, '/ok');
    await place(partner);
    const [listed] = await logOnce(endpoint.id, (rows) => rows[0]?.status === 'succeeded');

    const response = await detail(endpoint.id, listed.id).expect(200);

    const delivery = response.body as Delivery;
    expect(delivery).toMatchObject({
      id: listed.id,
      endpoint_id: endpoint.id,
      event_id: listed.event_id,
      event_type: 'order.placed',
      status: 'succeeded',
    });
    // The last attempt succeeded (on a busy machine an earlier one may have timed out).
    const sent = received.filter((entry) => entry.headers['webhook-id'] === listed.event_id).at(-1)!;
    expect(delivery.request_body).toBe(sent.body);
    const attempt = delivery.attempts.at(-1)!;
    expect(attempt).toMatchObject({
      number: delivery.attempts.length,
      status_code: 200,
      error: null,
      response_body: '{"received":true}',
      response_body_truncated: false,
    });
    expect(attempt.response_headers).toMatchObject({
      'content-type': 'application/json',
      'x-trace': 'trace-42',
    });
    expect(attempt.request_headers).toEqual({
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(sent.body)),
      'user-agent': sent.headers['user-agent'],
      'webhook-id': listed.event_id,
      'webhook-timestamp': sent.headers['webhook-timestamp'],
      'webhook-signature': sent.headers['webhook-signature'],
    });
    // What the log shows is what a receiver verifies: the stored headers and body carry a valid signature.
    expect(
      hasValidSignature(
        { path: '/ok', status: 200, headers: attempt.request_headers!, body: delivery.request_body! },
        endpoint.secret,
      ),
    ).toBe(true);
    // The list keeps its pages light: outcomes only, no receiver bodies.
    expect(Object.keys(listed.attempts[0]).sort()).toEqual([
      'attempted_at',
      'duration_ms',
      'error',
      'status_code',
    ]);
  });

  it("keeps the first 4 KiB of a receiver's body and a bounded set of its headers", async () => {
    const partner = await fixtures.partner();
    const busy = await register(partner.companyId, '/busy');
    const chatty = await register(partner.companyId, '/chatty');
    await place(partner);
    const [failing] = await logOnce(busy.id, (rows) => rows[0]?.attempts.length > 0);
    const [talked] = await logOnce(chatty.id, (rows) => rows[0]?.status === 'succeeded');

    const [attempt] = ((await detail(busy.id, failing.id).expect(200)).body as Delivery).attempts;
    expect(attempt).toMatchObject({ status_code: 503, error: 'HTTP 503 Service Unavailable' });
    expect(Buffer.byteLength(attempt.response_body!)).toBe(4096);
    expect(attempt.response_body).toBe(Buffer.from(ANSWERS['/busy'].body).subarray(0, 4096).toString());
    expect(attempt.response_body_truncated).toBe(true);
    expect(attempt.response_headers).toMatchObject({ 'retry-after': '3600' });

    const [many] = ((await detail(chatty.id, talked.id).expect(200)).body as Delivery).attempts;
    const headers = Object.entries(many.response_headers!);
    expect(headers.length).toBeGreaterThan(10);
    expect(headers.length).toBeLessThanOrEqual(50);
    expect(
      headers.reduce((chars, [name, value]) => chars + name.length + value.length, 0),
    ).toBeLessThanOrEqual(4096);
  });

  it('never stores the endpoint secret, in any column of the attempts or the deliveries', async () => {
    const partner = await fixtures.partner();
    const endpoint = await register(partner.companyId, '/ok');
    await place(partner);
    await place(partner);
    await logOnce(
      endpoint.id,
      (rows) => rows.length === 2 && rows.every((row) => row.status === 'succeeded'),
    );
    const key = endpoint.secret.replace(/^whsec_/, '');
    const hexKey = Buffer.from(key, 'base64').toString('hex');

    const rows = await service.db.query(
      `SELECT row_to_json(a)::text AS attempt, row_to_json(d)::text AS delivery
       FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id
       WHERE d.endpoint_id = $1`,
      [endpoint.id],
    );

    expect(rows.rows).toHaveLength(2);
    for (const row of rows.rows as { attempt: string; delivery: string }[]) {
      expect(row.attempt).toContain('webhook-signature');
      for (const text of [row.attempt, row.delivery]) {
        expect(text).not.toContain(key);
        expect(text).not.toContain(hexKey);
        expect(text).not.toContain('whsec_');
      }
    }
  });

  it('filters the log by status, event type and event id; every filter given applies', async () => {
    const partner = await fixtures.partner();
    const endpoint = await register(partner.companyId, '/ok');
    const orderId = await place(partner);
    await api()
      .post(`/api/v2/order/${orderId}/comment`)
      .set(as(partner.token))
      .send({ partner_comment: 'Hi.' })
      .expect(200);
    const all = await logOnce(
      endpoint.id,
      (rows) => rows.length === 2 && rows.every((row) => row.status === 'succeeded'),
    );
    const placed = all.find((row) => row.event_type === 'order.placed')!;
    const comment = all.find((row) => row.event_type === 'order.comment')!;
    // Each delivery was written with its event's type, which the type filter reads.
    const written = await service.db.query(
      `SELECT d.id::int AS id, d.event_type FROM webhook_deliveries d JOIN events e ON e.id = d.event_id
       WHERE d.endpoint_id = $1 AND d.event_type = e.type ORDER BY d.id`,
      [endpoint.id],
    );
    expect(written.rows).toEqual([
      { id: placed.id, event_type: 'order.placed' },
      { id: comment.id, event_type: 'order.comment' },
    ]);
    // One delivery given up, as the dispatcher leaves it after 24 hours.
    await service.db.query(
      `UPDATE webhook_deliveries SET status = 'failed', delivered_at = NULL WHERE id = $1`,
      [comment.id],
    );
    const ids = async (query: Record<string, string>) =>
      ((await deliveries(endpoint.id, query).expect(200)).body.data as Delivery[]).map((row) => row.id);

    expect(await ids({ status: 'failed' })).toEqual([comment.id]);
    expect(await ids({ status: 'succeeded' })).toEqual([placed.id]);
    expect(await ids({ status: 'pending' })).toEqual([]);
    expect(await ids({ event_type: 'order.placed' })).toEqual([placed.id]);
    expect(await ids({ event_type: 'order.comment', status: 'succeeded' })).toEqual([]);
    expect(await ids({ event_id: comment.event_id })).toEqual([comment.id]);
    expect(await ids({ event_id: placed.event_id, status: 'failed' })).toEqual([]);
    expect(await ids({ event_id: 'evt_999999999' })).toEqual([]);
    const page = await deliveries(endpoint.id, { status: 'failed', per_page: '1' }).expect(200);
    expect(page.body.links.first).toContain('status=failed');

    const bad = { status: 'lost', event_type: 'order.eaten', event_id: 'evt_0' };
    const response = await deliveries(endpoint.id, bad).expect(400);
    expect(response.body.message).toBe('Bad request.');
    expect(Object.keys(response.body.errors).sort()).toEqual(['event_id', 'event_type', 'status']);
    expect(response.body.errors.event_id).toEqual([
      'The event id must be evt_ and a number, as in webhook-id.',
    ]);
  });

  it("answers another endpoint's delivery, an unknown one and an unknown endpoint with 404; admins only", async () => {
    const partner = await fixtures.partner();
    const owner = await register(partner.companyId, '/ok');
    const other = await register((await fixtures.partner()).companyId, '/ok');
    await place(partner);
    const [delivery] = await logOnce(owner.id, (rows) => rows.length === 1);
    const notFound = { message: 'Delivery not found: this endpoint has no delivery with this id.' };

    await detail(other.id, delivery.id).expect(404, notFound);
    for (const id of ['999999999999', 'abc', '0', '1234567890123456789'])
      await detail(owner.id, id).expect(404, notFound);
    await detail(987654, delivery.id).expect(404, { message: 'Webhook not found.' });
    await api()
      .get(`/api/v2/admin/webhooks/${owner.id}/deliveries/${delivery.id}`)
      .set(as(partner.token))
      .expect(403, { message: 'Forbidden.' });
    await api().get(`/api/v2/admin/webhooks/${owner.id}/deliveries/${delivery.id}`).expect(401);
  });

  it('purges finished deliveries past WEBHOOK_LOG_RETENTION_DAYS with their attempts, never a pending one', async () => {
    const partner = await fixtures.partner();
    const endpoint = await register(partner.companyId, '/ok');
    await place(partner);
    await place(partner);
    await place(partner);
    const [recent, pending, old] = await logOnce(
      endpoint.id,
      (rows) => rows.length === 3 && rows.every((row) => row.status === 'succeeded'),
    );
    await service.db.query(
      `UPDATE webhook_deliveries SET created_at = now() - interval '3 days' WHERE id = ANY($1)`,
      [[old.id, pending.id]],
    );
    await service.db.query(
      `UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = now() + interval '1 day' WHERE id = $1`,
      [pending.id],
    );

    // Another instance starting runs the purge at once; this one keeps two days.
    const purger = await startApp({
      env: {
        DATABASE_URL: service.databaseUrl,
        WEBHOOK_DISPATCHER: 'false',
        WEBHOOK_LOG_RETENTION_DAYS: '2',
      },
    });
    try {
      await eventually(
        () => purger.logs().some((line) => line.event === 'webhook_log_purged'),
        () => 'The purge did not run',
      );
    } finally {
      await purger.stop();
    }

    expect(
      ((await deliveries(endpoint.id).expect(200)).body.data as Delivery[]).map((row) => row.id),
    ).toEqual([recent.id, pending.id]);
    await detail(endpoint.id, old.id).expect(404);
    const orphans = await service.db.query(
      'SELECT count(*)::int AS n FROM webhook_attempts WHERE delivery_id = $1',
      [old.id],
    );
    expect(orphans.rows[0].n).toBe(0);
  });

  it('refuses to start with a retention that is not a whole number of days from 1 to 3650', async () => {
    await expect(
      startApp({ env: { DATABASE_URL: service.databaseUrl, WEBHOOK_LOG_RETENTION_DAYS: '0' } }),
    ).rejects.toThrow(/WEBHOOK_LOG_RETENTION_DAYS: must be an integer from 1 to 3650 \(days\)/);
  });
});
