import request from 'supertest';
import { issueAdminToken, startApp, type TestApp } from './harness/app';
import { Fixtures, orderBody, type Partner } from './harness/factories';
import { type LogLine } from './harness/service';
import { FAST_DISPATCH, startWebhookReceiver, type WebhookReceiver } from './harness/webhook-receiver';

interface Company {
  id: number;
  name: string;
  site: string;
}

interface TimelineEntry {
  kind: 'audit' | 'event';
  at: string;
  audit?: {
    id: number;
    action: string;
    changed_fields: string[];
    user_name: string;
    token_id: number | null;
    token_role: string | null;
    request_id: string | null;
  };
  event?: {
    id: string;
    type: string;
    deliveries: {
      id: number;
      endpoint_id: number;
      endpoint_url: string;
      status: string;
      attempt_count: number;
      last_attempt?: {
        attempted_at: string;
        status_code: number | null;
        duration_ms: number;
        error: string | null;
      };
    }[];
  };
}

/**
 * The administrator's order lookup and timeline (CONTRACT §6): orders across companies, filtered and paged as
 * the partner list is, each the very object its partner gets, and one order's company and timeline.
 */
describe('admin orders (GET /admin/orders, GET /admin/orders/{id})', () => {
  let service: TestApp;
  let receiver: WebhookReceiver;
  let admin: string;
  let fixtures: Fixtures;
  let productId: number;
  let logisticsToken: string;
  /** Two companies on different sites, three orders each. */
  let skPartner: Partner;
  let czPartner: Partner;
  let skCompanyName: string;
  let skOrders: number[];
  let czOrders: number[];

  const api = () => request(service.url);
  const as = (token: string) => ({ Authorization: `Bearer ${token}` });
  const adminGet = (path: string) => api().get(`/api/v2/admin/orders${path}`).set(as(admin));
  const idsOf = (body: { data: { order: { order_id: number } }[] }) =>
    body.data.map((item) => item.order.order_id);
  const place = async (partner: Partner, overrides = {}): Promise<number> => {
    const response = await api()
      .post('/api/v2/order')
      .set(as(partner.token))
      .send(orderBody(productId, overrides))
      .expect(201);
    return Number(response.body.orders[0].order_id);
  };
  const logLine = async (requestId: string): Promise<LogLine> => {
    for (let attempt = 0; attempt < 40; attempt += 1) {
      const line = service.logs().find((entry) => entry.requestId === requestId);
      if (line) return line;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`no log line for ${requestId}`);
  };

  beforeAll(async () => {
    receiver = await startWebhookReceiver((incoming) => (incoming.path === '/down' ? 500 : 200));
    // A receiver that answers 500 at once: a slow machine must not turn its answer into a timeout.
    service = await startApp({ env: { ...FAST_DISPATCH, WEBHOOK_TIMEOUT_MS: '10000' } });
    admin = await issueAdminToken(service);
    fixtures = new Fixtures(service.url, admin);
    productId = (await fixtures.product()).id;
    logisticsToken = await fixtures.logisticsToken('courier-adminorders');
    skPartner = await fixtures.partner('SK');
    czPartner = await fixtures.partner('CZ');
    const companies = (await api().get('/api/v2/admin/companies').set(as(admin)).expect(200)).body
      .data as Company[];
    skCompanyName = companies.find((company) => company.id === skPartner.companyId)!.name;
    skOrders = [await place(skPartner), await place(skPartner), await place(skPartner)];
    czOrders = [await place(czPartner), await place(czPartner), await place(czPartner)];
    // The first SK order was placed long ago, for the created range.
    await service.db.query(`UPDATE orders SET created_at = '2020-01-15T10:00:00Z' WHERE id = $1`, [
      skOrders[0],
    ]);
    await api().post(`/api/v2/logistics/orders/${czOrders[0]}/sent`).set(as(logisticsToken)).expect(200);
  });

  afterAll(async () => {
    await service.stop();
    await receiver.close();
  });

  describe('the list', () => {
    it('finds a company’s orders, newest first, each with its company by name', async () => {
      const response = await adminGet(`?company_id=${skPartner.companyId}`).expect(200);
      expect(idsOf(response.body)).toEqual([skOrders[2], skOrders[1], skOrders[0]]);
      expect(response.body.data[0].company).toEqual({
        id: skPartner.companyId,
        name: skCompanyName,
        site: 'SK',
      });
    });

    it('lists every company’s orders without a filter', async () => {
      const response = await adminGet('').expect(200);
      expect(idsOf(response.body)).toEqual(expect.arrayContaining([...skOrders, ...czOrders]));
      expect(idsOf(response.body)[0]).toBe(czOrders[2]);
    });

    it('finds an order by its id and by the reference a partner reads out, in any case, zeros optional', async () => {
      expect(idsOf((await adminGet(`?order_id=${czOrders[1]}`).expect(200)).body)).toEqual([czOrders[1]]);
      const ref = `CZ-${String(czOrders[1]).padStart(7, '0')}`;
      const byRef = await adminGet(`?order_ref=${ref}`).expect(200);
      expect(idsOf(byRef.body)).toEqual([czOrders[1]]);
      expect(byRef.body.data[0].order.order_ref).toBe(ref);
      expect(idsOf((await adminGet(`?order_ref=cz-${czOrders[1]}`).expect(200)).body)).toEqual([czOrders[1]]);
      // The right number on another site is not this order.
      expect((await adminGet(`?order_ref=SK-${czOrders[1]}`).expect(200)).body.data).toEqual([]);
      expect((await adminGet(`?order_id=${czOrders[0]}&order_ref=${ref}`).expect(200)).body.data).toEqual([]);
      expect((await adminGet('?order_id=99999999999').expect(200)).body.data).toEqual([]);
    });

    it('filters by state', async () => {
      const sent = await adminGet('?state=SENT_TO_LOGISTICS').expect(200);
      expect(idsOf(sent.body)).toEqual([czOrders[0]]);
      const placed = await adminGet(`?company_id=${czPartner.companyId}&state=PLACED`).expect(200);
      expect(idsOf(placed.body)).toEqual([czOrders[2], czOrders[1]]);
    });

    it('filters by the created range, bounds included', async () => {
      const range = await adminGet('?created_from=2020-01-15T10:00&created_to=2020-01-15T10:00').expect(200);
      expect(idsOf(range.body)).toEqual([skOrders[0]]);
      const since = await adminGet(`?company_id=${skPartner.companyId}&created_from=2021-01-01`).expect(200);
      expect(idsOf(since.body)).toEqual([skOrders[2], skOrders[1]]);
      const until = await adminGet('?created_to=2020-12-31').expect(200);
      expect(idsOf(until.body)).toEqual([skOrders[0]]);
    });

    it('pages like the partner list, the links keeping every filter', async () => {
      const first = await adminGet(`?company_id=${skPartner.companyId}&per_page=2`).expect(200);
      expect(idsOf(first.body)).toEqual([skOrders[2], skOrders[1]]);
      expect(first.body.meta).toMatchObject({ current_page: 1, from: 1, to: 2, per_page: 2 });
      expect(first.body.meta.path).toBe(`${service.url}/api/v2/admin/orders`);
      expect(first.body.links.prev).toBeNull();
      expect(first.body.links.last).toBeNull();
      const next = new URL(first.body.links.next as string);
      expect(next.searchParams.get('company_id')).toBe(String(skPartner.companyId));
      const second = await adminGet(`${next.search}`).expect(200);
      expect(idsOf(second.body)).toEqual([skOrders[0]]);
      expect(second.body.meta).toMatchObject({ current_page: 2, from: 3, to: 3 });
      expect(second.body.links.next).toBeNull();
      const past = await adminGet(`?company_id=${skPartner.companyId}&page=9`).expect(200);
      expect(past.body.data).toEqual([]);
      expect(past.body.meta).toMatchObject({ from: null, to: null });
    });

    it('refuses bad filters with a 400 naming each of them', async () => {
      const response = await adminGet(
        '?company_id=abc&order_id=12a&order_ref=SK0000123&state=LOST&created_from=2024-02-30&per_page=26',
      ).expect(400);
      expect(response.body.message).toBe('Bad request.');
      expect(Object.keys(response.body.errors).sort()).toEqual(
        ['company_id', 'created_from', 'order_id', 'order_ref', 'per_page', 'state'].sort(),
      );
      expect(response.body.errors.order_ref).toEqual([
        'The order reference must be a site, a dash and the order id, like SK-0000123.',
      ]);
      const twice = await adminGet('?state=PLACED&state=SENT_TO_LOGISTICS').expect(400);
      expect(Object.keys(twice.body.errors)).toEqual(['state']);
    });

    it('gives each order exactly as its partner lists it', async () => {
      const partnerList = await api()
        .get(`/api/v2/order?order_id=${skOrders[1]}`)
        .set(as(skPartner.token))
        .expect(200);
      const adminList = await adminGet(`?order_id=${skOrders[1]}`).expect(200);
      expect(adminList.body.data[0].order).toEqual(partnerList.body.data[0]);
      expect(JSON.stringify(adminList.body.data[0].order)).toBe(JSON.stringify(partnerList.body.data[0]));
    });
  });

  describe('one order', () => {
    let orderId: number;
    let updater: Partner;
    let endpointId: number;
    let detail: { order: unknown; company: Company; timeline: TimelineEntry[]; timeline_truncated: boolean };

    beforeAll(async () => {
      const down = await api()
        .post('/api/v2/admin/webhooks')
        .set(as(admin))
        .send({ company_id: skPartner.companyId, url: `${receiver.url}/down` })
        .expect(201);
      endpointId = down.body.id;
      orderId = await place(skPartner);
      updater = await fixtures.partnerOf(skPartner.companyId);
      await api()
        .post(`/api/v2/order/${orderId}/update`)
        .set(as(updater.token))
        .set('X-Request-Id', 'admin-orders-update')
        .send({ email: 'changed@example.com', phone: '+421900000001' })
        .expect(200);
      await api()
        .post(`/api/v2/order/${orderId}/comment`)
        .set(as(skPartner.token))
        .send({ partner_comment: 'Call before delivery' })
        .expect(200);
      // Every delivery of the order's events has been tried at least once (and refused).
      await receiver.waitFor(
        (received) =>
          new Set(
            received.filter((entry) => entry.path === '/down').map((entry) => entry.headers['webhook-id']),
          ).size >= 3,
      );
      detail = (await adminGet(`/${orderId}`).expect(200)).body;
    });

    it('is the object GET /order/{id} gives its partner, byte for byte, with its company', async () => {
      const partnerView = await api().get(`/api/v2/order/${orderId}`).set(as(skPartner.token)).expect(200);
      expect(detail.order).toEqual(partnerView.body);
      expect(JSON.stringify(detail.order)).toBe(partnerView.text);
      expect(detail.company).toEqual({ id: skPartner.companyId, name: skCompanyName, site: 'SK' });
      expect(detail.timeline_truncated).toBe(false);
    });

    it('shows who changed the order, oldest first: user name, token id and role, and the fields', () => {
      const changes = detail.timeline.filter((entry) => entry.kind === 'audit').map((entry) => entry.audit!);
      expect(changes.map((change) => change.action)).toEqual([
        'order.placed',
        'order.updated',
        'order.comment_added',
      ]);
      expect(changes[0]).toMatchObject({ user_name: skPartner.userName, token_id: skPartner.tokenId });
      expect(changes[1]).toEqual({
        id: expect.any(Number),
        action: 'order.updated',
        changed_fields: ['email', 'phone'],
        user_name: updater.userName,
        token_id: updater.tokenId,
        token_role: 'partner',
        request_id: 'admin-orders-update',
      });
      for (const entry of detail.timeline) expect(entry.at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d$/);
    });

    it('shows each event with its deliveries: the failed one with its last attempt', async () => {
      const events = detail.timeline.filter((entry) => entry.kind === 'event').map((entry) => entry.event!);
      expect(events.map((event) => event.type)).toEqual(['order.placed', 'order.updated', 'order.comment']);
      const updated = events[1];
      expect(updated.id).toMatch(/^evt_\d+$/);
      expect(updated.deliveries).toEqual([
        {
          id: expect.any(Number),
          endpoint_id: endpointId,
          endpoint_url: `${receiver.url}/down`,
          status: 'pending',
          attempt_count: expect.any(Number),
          last_attempt: {
            attempted_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d$/),
            status_code: 500,
            duration_ms: expect.any(Number),
            error: expect.stringContaining('500'),
          },
        },
      ]);
      expect(updated.deliveries[0].attempt_count).toBeGreaterThanOrEqual(1);
      const log = await api()
        .get(`/api/v2/admin/webhooks/${endpointId}/deliveries`)
        .set(as(admin))
        .expect(200);
      const logged = log.body.data as { id: number }[];
      expect(logged.map((delivery) => delivery.id)).toContain(updated.deliveries[0].id);
    });

    it('puts each change before the events it wrote', () => {
      expect(
        detail.timeline.map((entry) => `${entry.kind} ${entry.audit?.action ?? entry.event!.type}`),
      ).toEqual([
        'audit order.placed',
        'event order.placed',
        'audit order.updated',
        'event order.updated',
        'audit order.comment_added',
        'event order.comment',
      ]);
    });

    it('shows a logistics token’s change with its role', async () => {
      const id = await place(czPartner);
      await api().post(`/api/v2/logistics/orders/${id}/sent`).set(as(logisticsToken)).expect(200);
      const timeline = (await adminGet(`/${id}`).expect(200)).body.timeline as TimelineEntry[];
      const sent = timeline.find((entry) => entry.audit?.action !== 'order.placed' && entry.kind === 'audit');
      expect(sent?.audit).toMatchObject({ user_name: 'courier-adminorders', token_role: 'logistics' });
      expect(
        timeline.filter((entry) => entry.kind === 'event').map((entry) => entry.event!.deliveries),
      ).toEqual([[], []]);
    });

    it('bounds the timeline and says so', async () => {
      await service.db.query(
        `INSERT INTO events (company_id, subject_type, order_id, type, data, transaction_id)
         SELECT $1, 'order', $2, 'order.comment', '{}', 1 FROM generate_series(1, 100)`,
        [skPartner.companyId, orderId],
      );
      const bounded = (await adminGet(`/${orderId}`).expect(200)).body;
      expect(bounded.timeline_truncated).toBe(true);
      const events = (bounded.timeline as TimelineEntry[]).filter((entry) => entry.kind === 'event');
      expect(events).toHaveLength(100);
      // The newest are kept: the placement's event is the one left out.
      expect(events.map((entry) => entry.event!.type)).not.toContain('order.placed');
      await service.db.query(`DELETE FROM events WHERE order_id = $1 AND transaction_id = 1`, [orderId]);
    });

    it('answers 404 for an unknown order, as the partner API does', async () => {
      const missing = await adminGet('/2147483647').expect(404);
      expect(missing.body).toEqual({ message: 'Order not found.' });
      expect((await adminGet('/abc').expect(404)).body).toEqual({ message: 'Order not found.' });
      expect((await adminGet('/99999999999').expect(404)).body).toEqual({ message: 'Order not found.' });
    });

    it('costs the same statements for an order with many events and deliveries as for one with none, and the list two', async () => {
      const quiet = await place(czPartner);
      await adminGet(`/${quiet}`).set('X-Request-Id', 'admin-order-quiet').expect(200);
      await adminGet(`/${orderId}`).set('X-Request-Id', 'admin-order-busy').expect(200);
      const quietCount = (await logLine('admin-order-quiet')).dbQueries;
      expect((await logLine('admin-order-busy')).dbQueries).toBe(quietCount);
      expect(quietCount).toBeLessThanOrEqual(6);
      await adminGet('?per_page=1').set('X-Request-Id', 'admin-orders-1').expect(200);
      await adminGet('?per_page=25').set('X-Request-Id', 'admin-orders-25').expect(200);
      expect((await logLine('admin-orders-1')).dbQueries).toBe(2);
      expect((await logLine('admin-orders-25')).dbQueries).toBe(2);
    });
  });

  describe('access', () => {
    it('refuses partner and logistics tokens (403) and requests without a token (401)', async () => {
      for (const path of ['/api/v2/admin/orders', `/api/v2/admin/orders/${skOrders[0]}`]) {
        for (const token of [skPartner.token, logisticsToken]) {
          const refused = await api().get(path).set(as(token)).expect(403);
          expect(refused.body).toEqual({ message: 'Forbidden.' });
        }
        expect((await api().get(path).expect(401)).body).toEqual({ message: 'Unauthenticated.' });
      }
    });
  });
});
