import request from 'supertest';
import { fromDist, issueAdminToken, issueToken, startApp, type TestApp } from './harness/app';
import { eventually } from './harness/eventually';
import { Fixtures, orderBody, type Partner } from './harness/factories';
import { FAST_DISPATCH, startWebhookReceiver, type WebhookReceiver } from './harness/webhook-receiver';

const { RequestLogWriter } = fromDist<typeof import('../src/request-log/request-log.writer')>(
  'request-log/request-log.writer',
);
const { RequestLogPartitions } = fromDist<typeof import('../src/request-log/request-log-partitions')>(
  'request-log/request-log-partitions',
);

interface Logged {
  request_id: string;
  created_at: string;
  method: string;
  route: string | null;
  path: string;
  status: number;
  duration_ms: number;
  company_id: number;
  token_id: number;
  user_name: string;
  idempotency_key: string | null;
  order_id: number | null;
  response_body: Record<string, unknown> | null;
}

/**
 * CONTRACT §4.12, the request log: every request of a company's tokens recorded off the request's path, read by
 * the company's tokens (read-only ones too) and by admins, never another company's, never a body or a token;
 * filters, errors grouped, a request's detail with its order, events and deliveries; 14 days kept.
 */
describe('the request log (CONTRACT §4.12)', () => {
  let app: TestApp;
  let admin: string;
  let fixtures: Fixtures;
  let productId: number;
  let receiver: WebhookReceiver;

  const api = () => request(app.url);
  const as = (token: string) => ({ Authorization: `Bearer ${token}` });

  /** The partner's log (its first page, with `query`) once the writer has written what it holds. */
  async function logOf(token: string, query = ''): Promise<Logged[]> {
    await app.get(RequestLogWriter).flush();
    return (await api().get(`/api/v2/requests${query}`).set(as(token)).expect(200)).body.data as Logged[];
  }

  /** Waits until the request of that id is in the partner's log: the writer writes after the response. */
  async function loggedRequest(token: string, requestId: string): Promise<Logged> {
    let found: Logged | undefined;
    await eventually(
      async () => {
        found = (await logOf(token)).find((entry) => entry.request_id === requestId);
        return found !== undefined;
      },
      () => `request ${requestId} never reached the log`,
    );
    return found!;
  }

  async function place(partner: Partner, headers: Record<string, string> = {}) {
    const response = await api()
      .post('/api/v2/order')
      .set({ ...as(partner.token), ...headers })
      .send(orderBody(productId));
    expect(response.status).toBe(201);
    return { orderId: Number(response.body.orders[0].order_id), requestId: response.headers['x-request-id'] };
  }

  beforeAll(async () => {
    receiver = await startWebhookReceiver(() => 200);
    app = await startApp({ env: { ...FAST_DISPATCH, REQUEST_LOG_FLUSH_MS: '50' } });
    admin = await issueAdminToken(app);
    fixtures = new Fixtures(app.url, admin);
    productId = (await fixtures.product()).id;
  });

  afterAll(async () => {
    await app?.stop();
    await receiver?.close();
  });

  it('records a request of a company token: method, route, path, status, duration, ids, user and Idempotency-Key', async () => {
    const partner = await fixtures.partner();
    const { orderId, requestId } = await place(partner, { 'Idempotency-Key': 'key-of-the-first-placement' });
    const entry = await loggedRequest(partner.token, requestId);
    expect(entry).toEqual({
      request_id: requestId,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d$/),
      method: 'POST',
      route: '/api/v2/order',
      path: '/api/v2/order',
      status: 201,
      duration_ms: expect.any(Number),
      company_id: partner.companyId,
      token_id: partner.tokenId,
      user_name: partner.userName,
      idempotency_key: 'key-of-the-first-placement',
      order_id: orderId,
      response_body: null,
    });
    const read = await api().get(`/api/v2/order/${orderId}`).set(as(partner.token)).expect(200);
    const readEntry = await loggedRequest(partner.token, read.headers['x-request-id']);
    expect(readEntry).toMatchObject({
      method: 'GET',
      route: '/api/v2/order/:id',
      path: `/api/v2/order/${orderId}`,
      status: 200,
      order_id: orderId,
    });
  });

  it('keeps the client’s own X-Request-Id, and the body of an error answer only', async () => {
    const partner = await fixtures.partner();
    await api()
      .get('/api/v2/order/999999999')
      .set({ ...as(partner.token), 'X-Request-Id': 'my-own-id-1' })
      .expect(404);
    const entry = await loggedRequest(partner.token, 'my-own-id-1');
    expect(entry).toMatchObject({
      status: 404,
      order_id: null,
      response_body: { message: 'Order not found.' },
    });
    const invalid = await api()
      .post('/api/v2/order')
      .set(as(partner.token))
      .send(orderBody(productId, { email: 'not-an-email' }));
    expect(invalid.status).toBe(400);
    const failed = await loggedRequest(partner.token, invalid.headers['x-request-id']);
    expect(failed.response_body).toEqual(invalid.body);
  });

  it("records a read-only token's refused write and a rate-limited request, each with its error body", async () => {
    const partner = await fixtures.partner();
    const reader = await issueToken(app, { role: 'partner', companyId: partner.companyId, readOnly: true });
    const refused = await api()
      .post('/api/v2/order')
      .set(as(reader.token))
      .send(orderBody(productId))
      .expect(403);
    const entry = await loggedRequest(partner.token, refused.headers['x-request-id']);
    expect(entry).toMatchObject({
      token_id: reader.id,
      status: 403,
      response_body: { message: 'Forbidden.' },
    });

    const limited = await startApp({
      env: { RATE_LIMIT_PER_MINUTE: '1', ADMIN_RATE_LIMIT_PER_MINUTE: '1000', REQUEST_LOG_FLUSH_MS: '50' },
    });
    try {
      const token = await new Fixtures(limited.url, await issueAdminToken(limited)).partner();
      await request(limited.url).get('/api/v2/product').set(as(token.token)).expect(200);
      const tooMany = await request(limited.url).get('/api/v2/product').set(as(token.token)).expect(429);
      await limited.get(RequestLogWriter).flush();
      const rows = await limited.db.query(
        'SELECT status, response_body FROM request_log WHERE request_id = $1',
        [tooMany.headers['x-request-id']],
      );
      expect(rows.rows).toEqual([{ status: 429, response_body: tooMany.body }]);
    } finally {
      await limited.stop();
    }
  });

  it('never stores a request body (device credentials) or a token', async () => {
    const partner = await fixtures.partner();
    const body = orderBody(productId);
    const placed = await api().post('/api/v2/order').set(as(partner.token)).send(body).expect(201);
    const refused = await api()
      .post('/api/v2/order')
      .set(as(partner.token))
      .send({ ...body, order_type: 'NOPE' })
      .expect(400);
    await loggedRequest(partner.token, placed.headers['x-request-id']);
    await loggedRequest(partner.token, refused.headers['x-request-id']);
    const stored = JSON.stringify((await app.db.query('SELECT * FROM request_log')).rows);
    for (const secret of [
      partner.token,
      admin,
      body.password as string,
      body.login as string,
      body.email as string,
    ])
      expect(stored).not.toContain(secret);
  });

  it('does not record requests without a company token (admin, none, a wrong one)', async () => {
    const before = Number((await app.db.query('SELECT count(*) AS n FROM request_log')).rows[0].n);
    await api().get('/api/v2/admin/companies').set(as(admin)).set('X-Request-Id', 'admin-call-1').expect(200);
    await api().get('/api/v2/order').set('X-Request-Id', 'anonymous-call-1').expect(401);
    await api()
      .get('/api/v2/order')
      .set(as('not-a-token'))
      .set('X-Request-Id', 'bad-token-call-1')
      .expect(401);
    await app.get(RequestLogWriter).flush();
    const rows = await app.db.query(
      `SELECT request_id FROM request_log WHERE request_id IN ('admin-call-1', 'anonymous-call-1', 'bad-token-call-1')`,
    );
    expect(rows.rows).toEqual([]);
    expect(
      Number((await app.db.query('SELECT count(*) AS n FROM request_log')).rows[0].n),
    ).toBeGreaterThanOrEqual(before);
  });

  it("shows a company only its own requests: another company's look missing (404)", async () => {
    const mine = await fixtures.partner();
    const theirs = await fixtures.partner();
    const { requestId } = await place(theirs);
    await loggedRequest(theirs.token, requestId);
    const listed = await logOf(mine.token);
    expect(listed.map((entry) => entry.request_id)).not.toContain(requestId);
    expect(listed.every((entry) => entry.company_id === mine.companyId)).toBe(true);
    const foreign = await api().get(`/api/v2/requests/${requestId}`).set(as(mine.token)).expect(404);
    const missing = await api().get('/api/v2/requests/no-such-request').set(as(mine.token)).expect(404);
    expect(foreign.body).toEqual({ message: 'Request not found.' });
    expect(missing.body).toEqual(foreign.body);
  });

  it("lets a read-only token read its company's log, its other users' requests included", async () => {
    const partner = await fixtures.partner();
    const reader = await issueToken(app, { role: 'partner', companyId: partner.companyId, readOnly: true });
    const { requestId } = await place(partner);
    const entry = await loggedRequest(reader.token, requestId);
    expect(entry.token_id).toBe(partner.tokenId);
    await api().get(`/api/v2/requests/${requestId}`).set(as(reader.token)).expect(200);
    await api().get('/api/v2/requests/errors').set(as(reader.token)).expect(200);
  });

  it('filters by status (a code, 4xx, 5xx), route, token and time, newest first, paged', async () => {
    const partner = await fixtures.partner();
    const other = await fixtures.partnerOf(partner.companyId);
    const { orderId, requestId: placement } = await place(partner);
    await api().get(`/api/v2/order/${orderId}`).set(as(other.token)).expect(200);
    const missing = await api().get('/api/v2/order/999999998').set(as(partner.token)).expect(404);
    const last = await api().get('/api/v2/order?per_page=1').set(as(partner.token)).expect(200);
    await loggedRequest(partner.token, last.headers['x-request-id']);

    // Reading the log is a request too: the order and the paging are checked where no read adds one.
    const adminLog = async (query: string) => {
      await app.get(RequestLogWriter).flush();
      return (
        await api()
          .get(`/api/v2/admin/requests?company_id=${partner.companyId}&route=${query}`)
          .set(as(admin))
          .expect(200)
      ).body as { data: Logged[]; meta: Record<string, unknown>; links: Record<string, string | null> };
    };
    const orderRoutes = encodeURIComponent('/api/v2/order/:id');
    const all = (await adminLog(orderRoutes)).data;
    expect(all.map((entry) => entry.request_id)).toEqual([
      missing.headers['x-request-id'],
      expect.any(String),
    ]);
    expect(all[1]).toMatchObject({ token_id: other.tokenId, status: 200 });
    const page = await adminLog(`${orderRoutes}&per_page=1&page=2`);
    expect(page.data.map((entry) => entry.request_id)).toEqual([all[1].request_id]);
    expect(page.meta).toMatchObject({ current_page: 2, per_page: 1, from: 2, to: 2 });
    expect(page.links.prev).toContain('page=1');
    expect(page.links.next).toBeNull();

    expect((await logOf(partner.token, '?status=4xx')).map((entry) => entry.request_id)).toEqual([
      missing.headers['x-request-id'],
    ]);
    expect((await logOf(partner.token, '?status=404')).map((entry) => entry.status)).toEqual([404]);
    expect(await logOf(partner.token, '?status=5xx')).toEqual([]);
    expect((await logOf(partner.token, '?status=201')).map((entry) => entry.request_id)).toEqual([placement]);
    const byRoute = await logOf(partner.token, `?route=${orderRoutes}`);
    expect(byRoute.map((entry) => entry.status)).toEqual([404, 200]);
    const byPath = await logOf(partner.token, `?route=${encodeURIComponent(`/api/v2/order/${orderId}`)}`);
    expect(byPath.map((entry) => entry.user_name)).toEqual([other.userName]);
    const byToken = await logOf(partner.token, `?token_id=${other.tokenId}`);
    expect(byToken.map((entry) => entry.request_id)).toEqual([all[1].request_id]);
    expect(await logOf(partner.token, '?to=2020-01-01')).toEqual([]);
    expect(await logOf(partner.token, `?route=${orderRoutes}&from=2020-01-01&status=200`)).toHaveLength(1);
  });

  it('refuses a bad filter with a 400 naming it', async () => {
    const partner = await fixtures.partner();
    const response = await api()
      .get('/api/v2/requests?status=4x&from=2026-02-30&token_id=abc&route=api%2Fv2%2Forder')
      .set(as(partner.token))
      .expect(400);
    expect(Object.keys(response.body.errors).sort()).toEqual(['from', 'route', 'status', 'token_id']);
    expect(response.body.errors.route).toEqual([
      'The route must be a route template or a path, starting with /.',
    ]);
  });

  it('groups the failed requests of a window by route, status and message, with a count and the latest id', async () => {
    const partner = await fixtures.partner();
    const first = await api().get('/api/v2/order/999999001').set(as(partner.token)).expect(404);
    const second = await api().get('/api/v2/order/999999002').set(as(partner.token)).expect(404);
    const invalid = await api()
      .post('/api/v2/order')
      .set(as(partner.token))
      .send(orderBody(productId, { email: 'nope' }))
      .expect(400);
    await loggedRequest(partner.token, invalid.headers['x-request-id']);
    await loggedRequest(partner.token, second.headers['x-request-id']);
    expect(first.status).toBe(404);
    const groups = (await api().get('/api/v2/requests/errors').set(as(partner.token)).expect(200)).body.data;
    expect(groups).toEqual([
      {
        route: '/api/v2/order/:id',
        status: 404,
        message: 'Order not found.',
        count: 2,
        latest_request_id: second.headers['x-request-id'],
        latest_at: expect.any(String),
        company_id: partner.companyId,
      },
      {
        route: '/api/v2/order',
        status: 400,
        message: invalid.body.message,
        count: 1,
        latest_request_id: invalid.headers['x-request-id'],
        latest_at: expect.any(String),
        company_id: partner.companyId,
      },
    ]);
    const outside = await api()
      .get('/api/v2/requests/errors?to=2020-01-01')
      .set(as(partner.token))
      .expect(200);
    expect(outside.body.data).toEqual([]);
  });

  it('shows what a request caused: the order it placed and the events it wrote with their deliveries', async () => {
    const partner = await fixtures.partner();
    await api()
      .post('/api/v2/webhooks')
      .set(as(partner.token))
      .send({ url: `${receiver.url}/request-log` })
      .expect(201);
    const { orderId, requestId } = await place(partner);
    await receiver.waitFor((received) =>
      received.some((webhook) => webhook.body.includes(`"order_id":${orderId}`)),
    );
    await loggedRequest(partner.token, requestId);
    let detail: Record<string, unknown> & { events: { deliveries: { status: string }[] }[] };
    await eventually(
      async () => {
        detail = (await api().get(`/api/v2/requests/${requestId}`).set(as(partner.token)).expect(200)).body;
        return detail.events[0]?.deliveries[0]?.status === 'succeeded';
      },
      () => `the delivery of the placement's event never showed as succeeded: ${JSON.stringify(detail)}`,
    );
    expect(detail!).toMatchObject({
      request_id: requestId,
      status: 201,
      order_id: orderId,
      order: { order_id: orderId, state: 'PLACED' },
      events: [
        {
          id: expect.stringMatching(/^evt_\d+$/),
          type: 'order.placed',
          deliveries: [{ status: 'succeeded', attempt_count: 1, last_status_code: 200 }],
        },
      ],
    });
    const read = await api().get(`/api/v2/order/${orderId}`).set(as(partner.token)).expect(200);
    await loggedRequest(partner.token, read.headers['x-request-id']);
    const readDetail = await api()
      .get(`/api/v2/requests/${read.headers['x-request-id']}`)
      .set(as(partner.token))
      .expect(200);
    expect(readDetail.body).toMatchObject({ order_id: orderId, events: [] });
  });

  it("lets admins read every company's log, one company's, and any request's detail", async () => {
    const one = await fixtures.partner();
    const two = await fixtures.partner();
    const first = await place(one);
    const second = await place(two);
    await loggedRequest(one.token, first.requestId);
    await loggedRequest(two.token, second.requestId);
    const everyone = (await api().get('/api/v2/admin/requests').set(as(admin)).expect(200)).body
      .data as Logged[];
    expect(everyone.map((entry) => entry.request_id)).toEqual(
      expect.arrayContaining([first.requestId, second.requestId]),
    );
    const ones = (
      await api().get(`/api/v2/admin/requests?company_id=${one.companyId}`).set(as(admin)).expect(200)
    ).body.data as Logged[];
    expect(ones.every((entry) => entry.company_id === one.companyId)).toBe(true);
    await api().get(`/api/v2/admin/requests/${second.requestId}`).set(as(admin)).expect(200);
    await api().get('/api/v2/admin/requests/errors').set(as(admin)).expect(200);
    await api().get('/api/v2/admin/requests').set(as(one.token)).expect(403);
    await api().get('/api/v2/requests').set(as(admin)).expect(403);
  });

  it('keeps 14 days: a day past them is dropped whole, the days ahead are created', async () => {
    const partner = await fixtures.partner();
    const { requestId } = await place(partner);
    await loggedRequest(partner.token, requestId);
    await app.db.query(
      `CREATE TABLE request_log_20200101 PARTITION OF request_log
         FOR VALUES FROM ('2020-01-01T00:00:00Z') TO ('2020-01-02T00:00:00Z')`,
    );
    await app.db.query(
      `INSERT INTO request_log (created_at, company_id, token_id, user_name, request_id, method, path, status, duration_ms)
       VALUES ('2020-01-01T12:00:00Z', $1, $2, 'old', 'an-old-request', 'GET', '/api/v2/order', 200, 1)`,
      [partner.companyId, partner.tokenId],
    );
    await api().get('/api/v2/requests/an-old-request').set(as(partner.token)).expect(200);
    await app.get(RequestLogPartitions).run();
    await api().get('/api/v2/requests/an-old-request').set(as(partner.token)).expect(404);
    const partitions = (
      await app.db.query(
        `SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
         WHERE i.inhparent = 'request_log'::regclass ORDER BY 1`,
      )
    ).rows.map((row: { relname: string }) => row.relname);
    expect(partitions).not.toContain('request_log_20200101');
    const day = (ahead: number) =>
      `request_log_${new Date(Date.now() + ahead * 86_400_000).toISOString().slice(0, 10).replaceAll('-', '')}`;
    expect(partitions).toEqual(expect.arrayContaining([day(0), day(1), day(2)]));
    await api().get(`/api/v2/requests/${requestId}`).set(as(partner.token)).expect(200);
    // A day whose end is 14 days ago or less is kept.
    const now = Date.now();
    await app.get(RequestLogPartitions).run(now + 13 * 86_400_000);
    await api().get(`/api/v2/requests/${requestId}`).set(as(partner.token)).expect(200);
  });
});
