import request from 'supertest';
import { issueAdminToken, startApp, type TestApp } from './harness/app';
import { Fixtures, orderBody } from './harness/factories';

/** The admin lists that filter by company; `/admin/audit-events` filters by token too. */
const LISTS = [
  '/api/v2/admin/orders',
  '/api/v2/admin/audit-events',
  '/api/v2/admin/tokens',
  '/api/v2/admin/webhooks',
];

const badRequest = (errors: Record<string, string[]>) => ({ message: 'Bad request.', errors });
const givenOnce = (label: string) => [`The ${label} must be given once, as a single value.`];

/**
 * Issue 31, item 9: an id filter of an admin list that names no row gives an empty page, whatever the id (0,
 * negative, beyond the integer column, or simply unused), and a parameter given more than once is refused as
 * such (CONTRACT §2), on every list alike.
 */
describe('the admin lists: company_id and token_id filters, and repeated parameters', () => {
  let app: TestApp;
  let admin: string;
  let companyId: number;
  let tokenId: number;

  const get = (path: string) => request(app.url).get(path).set('Authorization', `Bearer ${admin}`);

  beforeAll(async () => {
    app = await startApp({
      env: {
        RATE_LIMIT_PER_MINUTE: '100000',
        ADMIN_RATE_LIMIT_PER_MINUTE: '100000',
        // An endpoint on this machine, registered only to be listed: nothing is sent to it.
        WEBHOOK_ALLOW_PRIVATE: 'true',
        SERVICE_ROLE: 'api',
      },
    });
    admin = await issueAdminToken(app);
    const fixtures = new Fixtures(app.url, admin);
    const { partner } = await fixtures.partnerWithOrder();
    companyId = partner.companyId;
    tokenId = partner.tokenId;
    await request(app.url)
      .post('/api/v2/admin/webhooks')
      .set('Authorization', `Bearer ${admin}`)
      .send({ company_id: companyId, url: 'http://127.0.0.1:9/orders' })
      .expect(201);
  });

  afterAll(async () => {
    await app.stop();
  });

  it.each(LISTS)('%s: an id that names no company is an empty page, whatever the id', async (path) => {
    const own = await get(`${path}?company_id=${companyId}`).expect(200);
    expect(own.body.data.length).toBeGreaterThan(0);
    for (const id of ['0', '-1', '2147483647', '2147483648', '999999999999999', String(companyId + 1000)]) {
      const response = await get(`${path}?company_id=${id}`);
      expect({ id, status: response.status, data: response.body.data }).toEqual({
        id,
        status: 200,
        data: [],
      });
      expect(response.body.links.first).toContain(`company_id=${id}`);
    }
  });

  it.each(LISTS)(
    '%s: a company_id that is not an integer, or given twice, is a 400 naming it',
    async (path) => {
      await get(`${path}?company_id=abc`).expect(
        400,
        badRequest({ company_id: ['The company id must be an integer.'] }),
      );
      for (const query of [
        `company_id=${companyId}&company_id=${companyId}`,
        'company_id=1&company_id=2',
        'company_id[]=1',
      ])
        await get(`${path}?${query}`).expect(400, badRequest({ company_id: givenOnce('company id') }));
    },
  );

  it('filters the audit trail by token_id in the same way', async () => {
    const own = await get(`/api/v2/admin/audit-events?token_id=${tokenId}`).expect(200);
    expect(own.body.data.length).toBeGreaterThan(0);
    for (const id of ['0', '-1', '2147483647', '2147483648'])
      await get(`/api/v2/admin/audit-events?token_id=${id}`)
        .expect(200)
        .expect(({ body }) => expect(body.data).toEqual([]));
    await get('/api/v2/admin/audit-events?token_id=1&token_id=2').expect(
      400,
      badRequest({ token_id: givenOnce('token id') }),
    );
  });

  it('names a repeated parameter beside every other bad one, on partner lists too', async () => {
    await get('/api/v2/admin/orders?company_id=1&company_id=2&state=NOPE&page=1&page=2').expect(
      400,
      badRequest({
        state: [
          'The selected state is invalid: use PLACED, TEST, SENT_TO_LOGISTICS, DISPATCHED, DELIVERED, COMPLETED, CANCELLED.',
        ],
        company_id: givenOnce('company id'),
        page: givenOnce('page'),
      }),
    );
    const fixtures = new Fixtures(app.url, admin);
    const partner = await fixtures.partner();
    await request(app.url)
      .post('/api/v2/order')
      .set('Authorization', `Bearer ${partner.token}`)
      .send(orderBody((await fixtures.product()).id))
      .expect(201);
    await request(app.url)
      .get('/api/v2/order?order_id=1&order_id=2')
      .set('Authorization', `Bearer ${partner.token}`)
      .expect(400, badRequest({ order_id: givenOnce('order id') }));
  });
});
