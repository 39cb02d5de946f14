import request from 'supertest';
import { issueAdminToken, startApp, type TestApp } from './harness/app';
import { Fixtures, orderBody, type Partner } from './harness/factories';
import { ORDER_FIELDS } from '../src/orders/domain/order-view';

/**
 * The order object is built by PostgreSQL from the order view (src/orders/persistence/order-view.ts): its fields keep the spec's order and
 * its datetimes the service time zone, here one with a 45-minute offset.
 */
describe('the order object in another service time zone', () => {
  let service: TestApp;
  let partner: Partner;
  let id: number;

  beforeAll(async () => {
    service = await startApp({ env: { APP_TIMEZONE: 'Asia/Kathmandu' } });
    const fixtures = new Fixtures(service.url, await issueAdminToken(service));
    partner = await fixtures.partner('HU');
    const product = await fixtures.product();
    const placed = await request(service.url)
      .post('/api/v2/order')
      .set('Authorization', `Bearer ${partner.token}`)
      .send(orderBody(product.id, { login: 'device-7', password: 's3cret' }))
      .expect(201);
    id = Number(placed.body.orders[0].order_id);
    await service.db.query(
      `UPDATE orders SET created_at = '2024-05-01T00:59:59Z', updated_at = '2024-05-01T23:20:00Z' WHERE id = $1`,
      [id],
    );
    await service.db.query(
      `INSERT INTO trackings (order_id, company_id, tracking_number, dispatch_date) VALUES ($1, $2, 'T-1', '2024-05-02T18:14:59Z')`,
      [id, partner.companyId],
    );
  });

  afterAll(async () => {
    await service.stop();
  });

  it('gives one order its fields in the order of the spec, with its datetimes in the service time zone', async () => {
    const response = await request(service.url)
      .get(`/api/v2/order/${id}`)
      .set('Authorization', `Bearer ${partner.token}`)
      .expect(200);
    expect(Object.keys(response.body)).toEqual([...ORDER_FIELDS, 'comments']);
    expect(response.body).toMatchObject({
      created_at: '2024-05-01T06:44',
      updated_at: '2024-05-02T05:05',
      trackings: [expect.objectContaining({ tracking_number: 'T-1', dispatch_date: '2024-05-02T23:59' })],
      login: 'device-7',
      password: 's3cret',
    });
  });

  it('gives list items the same fields, comments under partner_comments', async () => {
    const response = await request(service.url)
      .get('/api/v2/order')
      .set('Authorization', `Bearer ${partner.token}`)
      .expect(200);
    expect(Object.keys(response.body.data[0])).toEqual([...ORDER_FIELDS, 'partner_comments']);
    expect(response.body.data[0]).toMatchObject({ order_id: id, created_at: '2024-05-01T06:44' });
  });
});
