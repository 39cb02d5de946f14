import request from 'supertest';
import { issueAdminToken, startApp, type TestApp } from './harness/app';
import { type Body, Fixtures, orderBody, type Partner } from './harness/factories';

const SENT_CONFLICT = { message: 'Order can no longer be updated: it has been sent to logistics.' };
const CANCEL_SENT_CONFLICT = { message: 'Order can no longer be cancelled: it has been sent to logistics.' };
const CANCEL_CANCELLED_CONFLICT = { message: 'Order can no longer be cancelled: it has been cancelled.' };

interface OrderView {
  state: string;
  city: string;
  trackings: { tracking_number: string }[];
  [field: string]: unknown;
}

describe('the order lifecycle and the logistics API (CONTRACT §3, §7)', () => {
  let service: TestApp;
  let admin: string;
  let logisticsToken: string;
  let partner: Partner;
  let productId: number;

  const api = () => request(service.url);
  const as = (token: string) => ({ Authorization: `Bearer ${token}` });

  async function place(overrides: Body = {}): Promise<number> {
    const response = await api()
      .post('/api/v2/order')
      .set(as(partner.token))
      .send(orderBody(productId, overrides));
    expect(response.status).toBe(201);
    return Number(response.body.orders[0].order_id);
  }

  const order = async (id: number): Promise<OrderView> =>
    (await api().get(`/api/v2/order/${id}`).set(as(partner.token)).expect(200)).body as OrderView;
  const logistics = (method: 'post' | 'put' | 'patch', path: string, body: Body = {}): request.Test => {
    const url = `/api/v2/logistics/orders${path}`;
    const call = method === 'post' ? api().post(url) : method === 'put' ? api().put(url) : api().patch(url);
    return call.set(as(logisticsToken)).send(body);
  };
  const sent = (id: number) => logistics('post', `/${id}/sent`);
  const track = (id: number, number: string, body: Body) =>
    logistics('put', `/${id}/trackings/${number}`, body);
  const deliveryError = (id: number, resolution: string) =>
    logistics('post', `/${id}/delivery-errors`, {
      status: 'Nobody home',
      date: '2026-11-20T10:00',
      resolution,
    });
  const entriesOf = (page: request.Response) =>
    (page.body as { data: ({ order_id: number } & OrderView)[] }).data;
  const idsOf = (page: request.Response) => entriesOf(page).map((entry) => entry.order_id);
  const stateOf = async (id: number) =>
    (await service.db.query('SELECT state FROM orders WHERE id = $1', [id])).rows[0].state as string;

  beforeAll(async () => {
    service = await startApp({
      env: { RATE_LIMIT_PER_MINUTE: '100000', ADMIN_RATE_LIMIT_PER_MINUTE: '100000' },
    });
    admin = await issueAdminToken(service);
    const fixtures = new Fixtures(service.url, admin);
    partner = await fixtures.partner('SK');
    productId = (await fixtures.product()).id;
    const issued = await api()
      .post('/api/v2/admin/tokens')
      .set(as(admin))
      .send({ role: 'logistics', user_name: 'courier' });
    logisticsToken = issued.body.token;
  });

  afterAll(async () => {
    await service.stop();
  });

  it('walks an order from PLACED through SENT, DISPATCHED and DELIVERED to COMPLETED', async () => {
    const id = await place();
    expect(await order(id)).toMatchObject({ state: 'PLACED', editable: true });

    const first = await sent(id);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({
      order_id: id,
      state: 'SENT_TO_LOGISTICS',
      editable: false,
      company_id: partner.companyId,
    });
    const again = await sent(id);
    expect(again.status).toBe(200);
    expect(again.body.version).toBe(first.body.version);

    const dispatched = await track(id, 'PKG-1', {
      status: 'Picked up',
      status_date: '2026-11-21T08:00',
      dispatch_date: '2026-11-21T08:00',
      tracking_link: 'https://track.example.com/PKG-1',
    });
    expect(dispatched.status).toBe(201);
    expect(dispatched.body.state).toBe('DISPATCHED');

    const delivered = await track(id, 'PKG-1', {
      status: 'Delivered',
      status_date: '2026-11-22T09:30',
      dispatch_date: '2026-11-21T08:00',
      delivery_date: '2026-11-22T09:30',
    });
    expect(delivered.status).toBe(200);
    expect(delivered.body.state).toBe('DELIVERED');
    expect(delivered.body.trackings).toEqual([
      {
        status: 'Delivered',
        status_date: '2026-11-22T09:30',
        dispatch_date: '2026-11-21T08:00',
        delivery_date: '2026-11-22T09:30',
        tracking_number: 'PKG-1',
        tracking_link: null,
      },
    ]);

    const secondParcel = await track(id, 'PKG-2', { dispatch_date: '2026-11-22T10:00' });
    expect(secondParcel.status).toBe(201);
    expect(secondParcel.body.state).toBe('DELIVERED');

    await logistics('post', `/${id}/detailed-statuses`, {
      status: 'Handed over',
      status_date: '2026-11-22T09:30',
      location: 'Bratislava',
    }).expect(201);
    await logistics('post', `/${id}/detailed-statuses`, {
      status: 'In depot',
      status_date: '2026-11-21T18:00',
    }).expect(201);
    await logistics('patch', `/${id}`, { serial_number: 'SN-1' }).expect(200);
    const completed = await logistics('patch', `/${id}`, { final_completion_date: '2026-11-23T12:00' });
    expect(completed.status).toBe(200);

    const seen = await order(id);
    expect(seen).toMatchObject({
      state: 'COMPLETED',
      serial_number: 'SN-1',
      final_completion_date: '2026-11-23T12:00',
      detailed_status: {
        status: 'Handed over',
        status_date: '2026-11-22T09:30',
        location: 'Bratislava',
        description: null,
        tracking_number: null,
        tracking_link: null,
      },
    });
    expect(seen.trackings.map((tracking) => tracking.tracking_number)).toEqual(['PKG-1', 'PKG-2']);

    await deliveryError(id, 'Information').expect(201);
    expect(await stateOf(id)).toBe('COMPLETED');
    const lateCancel = await deliveryError(id, 'Cancel');
    expect(lateCancel.status).toBe(409);
    expect(lateCancel.body).toEqual({
      message: 'The order is COMPLETED: a delivery error can no longer cancel it.',
    });
  });

  it('records every change of state in the audit trail under the logistics token', async () => {
    const id = await place();
    await sent(id).expect(200);
    await track(id, 'A-1', { delivery_date: '2026-11-22T09:30' }).expect(201);
    const { rows } = await service.db.query(
      `SELECT action, changed_fields, company_id, user_name FROM audit_events WHERE target_type = 'order' AND target_id = $1 ORDER BY id`,
      [String(id)],
    );
    expect(rows).toEqual([
      expect.objectContaining({ action: 'order.placed', user_name: partner.userName }),
      {
        action: 'order.sent_to_logistics',
        changed_fields: ['state'],
        company_id: partner.companyId,
        user_name: 'courier',
      },
      {
        action: 'order.tracking_added',
        changed_fields: ['state', 'trackings'],
        company_id: partner.companyId,
        user_name: 'courier',
      },
    ]);
  });

  it('cancels an order not yet delivered on a delivery error with resolution Cancel, and keeps Comment/Information as records', async () => {
    const id = await place();
    await sent(id).expect(200);
    await track(id, 'C-1', { dispatch_date: '2026-11-21T08:00' }).expect(201);
    await deliveryError(id, 'Comment').expect(201);
    expect(await stateOf(id)).toBe('DISPATCHED');
    const cancelled = await deliveryError(id, 'Cancel');
    expect(cancelled.status).toBe(201);
    expect(cancelled.body.state).toBe('CANCELLED');
    expect(cancelled.body.delivery_errors).toHaveLength(2);
    const afterwards = await track(id, 'C-1', { delivery_date: '2026-11-22T09:00' });
    expect(afterwards.status).toBe(409);
    expect(afterwards.body).toEqual({
      message: 'The order is CANCELLED: logistics can record data only once it has been sent to logistics.',
    });
    await api()
      .post(`/api/v2/order/${id}/update`)
      .set(as(partner.token))
      .send({ city: 'X' })
      .expect(409, { message: 'Order can no longer be updated: it has been cancelled.' });
    await api()
      .post(`/api/v2/order/${id}/cancel`)
      .set(as(partner.token))
      .expect(409, CANCEL_CANCELLED_CONFLICT);
  });

  describe('refused transitions', () => {
    it('refuses logistics data on an order not sent to logistics', async () => {
      const id = await place();
      for (const response of [
        await track(id, 'X', { dispatch_date: '2026-11-21T08:00' }),
        await logistics('post', `/${id}/detailed-statuses`, { status: 'x', status_date: '2026-11-21T08:00' }),
        await deliveryError(id, 'Information'),
        await logistics('patch', `/${id}`, { serial_number: 'S' }),
      ]) {
        expect(response.status).toBe(409);
        expect(response.body).toEqual({
          message: 'The order is PLACED: logistics can record data only once it has been sent to logistics.',
        });
      }
      expect(await stateOf(id)).toBe('PLACED');
    });

    it('refuses a completion date before delivery', async () => {
      const id = await place();
      await sent(id).expect(200);
      const early = await logistics('patch', `/${id}`, { final_completion_date: '2026-11-23T12:00' });
      expect(early.status).toBe(409);
      expect(early.body).toEqual({
        message: 'The order is SENT_TO_LOGISTICS: it can be completed only once delivered.',
      });
      await track(id, 'D', { dispatch_date: '2026-11-21T08:00' }).expect(201);
      await logistics('patch', `/${id}`, { final_completion_date: '2026-11-23T12:00' }).expect(409);
      const row = await service.db.query('SELECT final_completion_date FROM orders WHERE id = $1', [id]);
      expect(row.rows[0].final_completion_date).toBeNull();
    });

    it('never sends or processes a test order, and keeps it out of the queue', async () => {
      const id = await place({ test: true });
      const refused = await sent(id);
      expect(refused.status).toBe(409);
      expect(refused.body).toEqual({ message: 'A test order is never sent to logistics.' });
      const queued = await api()
        .get('/api/v2/logistics/orders?state=TEST')
        .set(as(logisticsToken))
        .expect(200);
      expect(queued.body.data).toEqual([]);
      expect(await stateOf(id)).toBe('TEST');
    });

    it('refuses to send a cancelled order', async () => {
      const id = await place();
      await api().post(`/api/v2/order/${id}/cancel`).set(as(partner.token)).expect(200);
      await sent(id).expect(409, {
        message: 'The order has been cancelled: it cannot be sent to logistics.',
      });
    });

    it('refuses a partner update or cancel once the order was sent', async () => {
      const id = await place();
      await sent(id).expect(200);
      await api()
        .post(`/api/v2/order/${id}/update`)
        .set(as(partner.token))
        .send({ city: 'Nitra' })
        .expect(409, SENT_CONFLICT);
      await api().post(`/api/v2/order/${id}/cancel`).set(as(partner.token)).expect(409, CANCEL_SENT_CONFLICT);
      expect(await stateOf(id)).toBe('SENT_TO_LOGISTICS');
    });
  });

  describe('partner cancel (CONTRACT §4.7)', () => {
    it('cancels a PLACED or TEST order: 200 with the integer id, state CANCELLED, audited', async () => {
      for (const test of [false, true]) {
        const id = await place({ test });
        const response = await api().post(`/api/v2/order/${id}/cancel`).set(as(partner.token));
        expect(response.status).toBe(200);
        expect(response.body).toEqual({
          message: 'Order cancelled.',
          orders: [{ order_id: id, order_ref: `SK-${String(id).padStart(7, '0')}`, order_type: 'REGULAR' }],
        });
        expect(await order(id)).toMatchObject({ state: 'CANCELLED', editable: false });
        const audit = await service.db.query(
          `SELECT 1 FROM audit_events WHERE action = 'order.cancelled' AND target_id = $1`,
          [String(id)],
        );
        expect(audit.rowCount).toBe(1);
      }
    });

    it("answers another company's or a missing order with 404", async () => {
      const stranger = await new Fixtures(service.url, admin).partner('SK');
      const id = await place();
      await api()
        .post(`/api/v2/order/${id}/cancel`)
        .set(as(stranger.token))
        .expect(404, { message: 'Order not found.' });
      await api()
        .post('/api/v2/order/99999999/cancel')
        .set(as(partner.token))
        .expect(404, { message: 'Order not found.' });
      expect(await stateOf(id)).toBe('PLACED');
    });
  });

  describe('the work queue', () => {
    it('lists orders of every company in a state, oldest first, with company and version', async () => {
      const other = await new Fixtures(service.url, admin).partner('HU');
      const mine = await place();
      const theirs = Number(
        (await api().post('/api/v2/order').set(as(other.token)).send(orderBody(productId))).body.orders[0]
          .order_id,
      );
      await service.db.query(`UPDATE orders SET created_at = now() + interval '1 day' WHERE id = $1`, [mine]);
      const queue = await api()
        .get('/api/v2/logistics/orders?per_page=25')
        .set(as(logisticsToken))
        .expect(200);
      const ids = idsOf(queue);
      expect(ids.indexOf(theirs)).toBeLessThan(ids.indexOf(mine));
      expect(entriesOf(queue).every((entry) => entry.state === 'PLACED')).toBe(true);
      expect(entriesOf(queue).find((entry) => entry.order_id === theirs)).toMatchObject({
        company_id: other.companyId,
        version: 1,
      });
    });

    it('refuses an unknown state filter', async () => {
      const response = await api().get('/api/v2/logistics/orders?state=LOST').set(as(logisticsToken));
      expect(response.status).toBe(400);
      expect(Object.keys(response.body.errors)).toEqual(['state']);
    });
  });

  describe('bad input and access', () => {
    it('answers each invalid write with 400 naming the field, and changes nothing', async () => {
      const id = await place();
      await sent(id).expect(200);
      const cases: [ReturnType<typeof logistics>, string][] = [
        [
          logistics('post', `/${id}/delivery-errors`, {
            status: 'x',
            date: '2026-11-20T10:00',
            resolution: 'Lost',
          }),
          'resolution',
        ],
        [logistics('post', `/${id}/delivery-errors`, { status: 'x', resolution: 'Comment' }), 'date'],
        [
          logistics('post', `/${id}/detailed-statuses`, { status: 'x', status_date: '2026-02-30' }),
          'status_date',
        ],
        [logistics('put', `/${id}/trackings/T`, { tracking_link: 'javascript:alert(1)' }), 'tracking_link'],
        [logistics('put', `/${id}/trackings/T`, { delivery_date: 'tomorrow' }), 'delivery_date'],
        [logistics('patch', `/${id}`, {}), 'body'],
      ];
      for (const [call, field] of cases) {
        const response = await call;
        expect(response.status).toBe(400);
        expect(Object.keys(response.body.errors)).toEqual([field]);
      }
      expect(await order(id)).toMatchObject({
        state: 'SENT_TO_LOGISTICS',
        trackings: [],
        delivery_errors: [],
        detailed_status: null,
      });
    });

    it('answers an unknown order with 404 and keeps partners and logistics apart', async () => {
      await sent(99999999).expect(404, { message: 'Order not found.' });
      await logistics('post', '/abc/sent').expect(404, { message: 'Order not found.' });
      const id = await place();
      await api()
        .post(`/api/v2/logistics/orders/${id}/sent`)
        .set(as(partner.token))
        .expect(403, { message: 'Forbidden.' });
      await api().get('/api/v2/logistics/orders').set(as(partner.token)).expect(403);
      await api().get(`/api/v2/order/${id}`).set(as(logisticsToken)).expect(403, { message: 'Forbidden.' });
      await api().get('/api/v2/logistics/orders').set(as(admin)).expect(403);
    });
  });

  describe('what partners see of logistics data', () => {
    it('filters on trackings written by logistics, and moves updated_at and the ETag with every fact', async () => {
      const id = await place();
      const before = await api().get(`/api/v2/order/${id}`).set(as(partner.token));
      await sent(id).expect(200);
      const number = `FILTER-${id}`;
      await track(id, number, { delivery_date: '2026-11-22T09:30' }).expect(201);
      const after = await api().get(`/api/v2/order/${id}`).set(as(partner.token));
      expect(Number(JSON.parse(after.headers.etag))).toBeGreaterThan(Number(JSON.parse(before.headers.etag)));
      const byNumber = await api()
        .get(`/api/v2/order?tracking_number=${number}`)
        .set(as(partner.token))
        .expect(200);
      expect(idsOf(byNumber)).toEqual([id]);
      const delivered = await api()
        .get('/api/v2/order?delivered=true&delivered_from=2026-11-22&delivered_to=2026-11-22T23:59')
        .set(as(partner.token))
        .expect(200);
      expect(idsOf(delivered)).toContain(id);
      const undelivered = await api()
        .get('/api/v2/order?delivered=false&per_page=25')
        .set(as(partner.token))
        .expect(200);
      expect(idsOf(undelivered)).not.toContain(id);
    });
  });

  describe('If-Match', () => {
    it('refuses a write on a version the order no longer has with 412, and accepts the current one', async () => {
      const id = await place();
      const read = await api().get(`/api/v2/order/${id}`).set(as(partner.token));
      const etag = read.headers.etag;
      expect(etag).toMatch(/^"\d+"$/);
      await api()
        .post(`/api/v2/order/${id}/update`)
        .set(as(partner.token))
        .set('If-Match', etag)
        .send({ city: 'Trnava' })
        .expect(200);
      const stale = await api()
        .post(`/api/v2/order/${id}/update`)
        .set(as(partner.token))
        .set('If-Match', etag)
        .send({ city: 'Zilina' });
      expect(stale.status).toBe(412);
      expect(stale.body.message).toMatch(/has changed since you read it/);
      expect((await order(id)).city).toBe('Trnava');
      const malformed = await api()
        .post(`/api/v2/order/${id}/cancel`)
        .set(as(partner.token))
        .set('If-Match', 'yesterday');
      expect(malformed.status).toBe(400);
      expect(Object.keys(malformed.body.errors)).toEqual(['If-Match']);
    });
  });

  describe('concurrency', () => {
    it('never lets a partner update and a logistics "sent" on what it read both succeed', async () => {
      for (let round = 0; round < 20; round += 1) {
        const id = await place();
        const etag = (await api().get(`/api/v2/order/${id}`).set(as(partner.token))).headers.etag;
        const city = `Raced ${round}`;
        const [update, ship] = await Promise.all([
          api().post(`/api/v2/order/${id}/update`).set(as(partner.token)).send({ city }),
          api().post(`/api/v2/logistics/orders/${id}/sent`).set(as(logisticsToken)).set('If-Match', etag),
        ]);
        const winners = [update.status, ship.status].filter((status) => status === 200);
        expect(winners).toHaveLength(1);
        const final = await order(id);
        if (update.status === 200) {
          expect(ship.status).toBe(412);
          expect(final).toMatchObject({ state: 'PLACED', city });
        } else {
          expect(update.status).toBe(409);
          expect(final.state).toBe('SENT_TO_LOGISTICS');
          expect(final.city).not.toBe(city);
        }
      }
    });

    it('moves an order to logistics once however many "sent" race: every one answers 200, one event', async () => {
      const id = await place();
      const responses = await Promise.all(
        Array.from({ length: 10 }, () =>
          api().post(`/api/v2/logistics/orders/${id}/sent`).set(as(logisticsToken)),
        ),
      );
      expect(responses.map((response) => response.status)).toEqual(Array(10).fill(200));
      expect(responses.map((response) => (response.body as { state: string }).state)).toEqual(
        Array(10).fill('SENT_TO_LOGISTICS'),
      );
      const events = await service.db.query(
        `SELECT count(*)::int AS n FROM events WHERE order_id = $1 AND type = 'order.state_changed'`,
        [id],
      );
      expect(events.rows[0].n).toBe(1);
      const final = await api().get(`/api/v2/order/${id}`).set(as(partner.token)).expect(200);
      expect(final.body.version).toBe(2);
    });

    it('never makes two rows of one tracking number, however many PUTs race', async () => {
      const id = await place();
      await sent(id).expect(200);
      const responses = await Promise.all(
        Array.from({ length: 10 }, (_, n) =>
          track(id, 'RACE-1', { status: `attempt ${n}`, dispatch_date: '2026-11-21T08:00' }),
        ),
      );
      expect(responses.map((response) => response.status).filter((status) => status === 201)).toHaveLength(1);
      expect(responses.every((response) => [200, 201].includes(response.status))).toBe(true);
      const rows = await service.db.query(
        `SELECT count(*)::int AS n FROM trackings WHERE order_id = $1 AND tracking_number = 'RACE-1'`,
        [id],
      );
      expect(rows.rows[0].n).toBe(1);
    });
  });
});
