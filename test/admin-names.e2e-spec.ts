import request from 'supertest';
import { issueAdminToken, startApp, type TestApp } from './harness/app';

let counter = 0;
const unique = (label: string): string => `${label}-${process.pid}-${(counter += 1)}`;

/**
 * Names and filters of the admin lists (CONTRACT §6, admin console): GET /admin/companies/{id}, the filters of
 * the companies, tokens, products and webhooks lists, and the company names of the audit trail.
 */
describe('admin names and list filters', () => {
  let service: TestApp;
  let admin: string;

  const api = () => request(service.url);
  const get = (path: string) => api().get(`/api/v2/admin${path}`).set('Authorization', `Bearer ${admin}`);
  const post = (path: string, body: object) =>
    api().post(`/api/v2/admin${path}`).set('Authorization', `Bearer ${admin}`).send(body);
  const ids = (body: { data: { id: number }[] }) => body.data.map((row) => row.id);

  async function createCompany(name: string, site = 'SK'): Promise<{ id: number; name: string }> {
    const response = await post('/companies', { name, site }).expect(201);
    return response.body as { id: number; name: string };
  }

  beforeAll(async () => {
    service = await startApp({
      env: {
        RATE_LIMIT_PER_MINUTE: '10000',
        ADMIN_RATE_LIMIT_PER_MINUTE: '10000',
        WEBHOOK_ALLOW_PRIVATE: 'true',
      },
    });
    admin = await issueAdminToken(service);
  });

  afterAll(async () => {
    await service.stop();
  });

  describe('GET /admin/companies/{id}', () => {
    it('answers the company with its name and site', async () => {
      const company = await createCompany(unique('Named Bistro'), 'CZ');
      const response = await get(`/companies/${company.id}`).expect(200);
      expect(response.body).toEqual({
        id: company.id,
        name: company.name,
        site: 'CZ',
        created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/),
      });
    });

    it.each(['999999999', 'abc', '0'])('answers 404 for company %s', async (id) => {
      const response = await get(`/companies/${id}`).expect(404);
      expect(response.body).toEqual({ message: 'Company not found.' });
    });

    it('is for admins only', async () => {
      const company = await createCompany(unique('Private Bistro'));
      const partner = await post('/tokens', { role: 'partner', user_name: 'p', company_id: company.id });
      await api()
        .get(`/api/v2/admin/companies/${company.id}`)
        .set('Authorization', `Bearer ${partner.body.token}`)
        .expect(403);
    });
  });

  describe('filters', () => {
    it('finds companies by a part of the name, whatever its case, and by site', async () => {
      const tag = unique('Zebra');
      const sk = await createCompany(`${tag} Pizza`, 'SK');
      const cz = await createCompany(`The ${tag.toUpperCase()} grill`, 'CZ');
      await createCompany(unique('Other'), 'SK');
      expect(
        ids((await get(`/companies?name=${encodeURIComponent(tag.toLowerCase())}`).expect(200)).body),
      ).toEqual([sk.id, cz.id]);
      expect(ids((await get(`/companies?name=${encodeURIComponent(tag)}&site=cz`).expect(200)).body)).toEqual(
        [cz.id],
      );
    });

    it('takes % and _ in a name filter literally', async () => {
      const tag = unique('Percent');
      const literal = await createCompany(`${tag} 100%_off`);
      await createCompany(`${tag} 100 and more off`);
      expect(ids((await get(`/companies?name=${encodeURIComponent('100%_')}`).expect(200)).body)).toEqual([
        literal.id,
      ]);
    });

    it('finds a company’s tokens by user name, role and state', async () => {
      const company = await createCompany(unique('Token Bistro'));
      const issue = (userName: string, extra: object = {}) =>
        post('/tokens', { role: 'partner', user_name: userName, company_id: company.id, ...extra })
          .expect(201)
          .then((response) => response.body as { id: number });
      const alice = await issue('Alice Novak');
      const bob = await issue('Bob Alison');
      const carol = await issue('Carol');
      const expired = await issue('Alice Old');
      await service.db.query("UPDATE api_tokens SET expires_at = now() - interval '1 hour' WHERE id = $1", [
        expired.id,
      ]);
      await api()
        .delete(`/api/v2/admin/tokens/${bob.id}`)
        .set('Authorization', `Bearer ${admin}`)
        .expect(200);
      const list = async (query: string) =>
        ids((await get(`/tokens?company_id=${company.id}&${query}`).expect(200)).body);
      expect(await list('user_name=ALI')).toEqual([alice.id, bob.id, expired.id]);
      expect(await list('state=active')).toEqual([alice.id, carol.id]);
      expect(await list('state=revoked')).toEqual([bob.id]);
      expect(await list('state=expired')).toEqual([expired.id]);
      expect(await list('user_name=ali&state=active')).toEqual([alice.id]);
      expect(await list('role=partner')).toEqual([alice.id, bob.id, carol.id, expired.id]);
      expect(await list('role=admin')).toEqual([]);
    });

    it('finds products by name and whether they are active', async () => {
      const tag = unique('Widget');
      const active = await post('/products', { name: `${tag} blue` }).expect(201);
      const inactive = await post('/products', { name: `${tag} red` }).expect(201);
      await api()
        .patch(`/api/v2/admin/products/${inactive.body.id}`)
        .set('Authorization', `Bearer ${admin}`)
        .send({ active: false })
        .expect(200);
      const list = async (query: string) => ids((await get(`/products?${query}`).expect(200)).body);
      expect(await list(`name=${tag.toLowerCase()}`)).toEqual([active.body.id, inactive.body.id]);
      expect(await list(`name=${tag}&active=false`)).toEqual([inactive.body.id]);
      expect(await list(`name=${tag}&active=1`)).toEqual([active.body.id]);
    });

    it('finds a company’s webhook endpoints by a part of the URL', async () => {
      const company = await createCompany(unique('Hook Bistro'));
      const register = (url: string) =>
        post('/webhooks', { company_id: company.id, url })
          .expect(201)
          .then((response) => response.body as { id: number });
      const orders = await register('http://127.0.0.1:9/Orders-Hook');
      await register('http://127.0.0.1:9/all');
      expect(ids((await get(`/webhooks?company_id=${company.id}&url=orders-HOOK`).expect(200)).body)).toEqual(
        [orders.id],
      );
    });

    it.each([
      ['/companies?site=SVK', 'site', 'The site filter must be a two-letter market code such as SK.'],
      ['/companies?name=%20%20', 'name', 'The name filter must not be empty.'],
      [
        `/companies?name=${'x'.repeat(256)}`,
        'name',
        'The name filter may not be greater than 255 characters.',
      ],
      ['/tokens?state=gone', 'state', 'The state filter must be one of active, expired, revoked.'],
      ['/tokens?role=root', 'role', 'The role filter must be one of partner, admin, logistics.'],
      ['/tokens?user_name=a&user_name=b', 'user_name', expect.any(String)],
      ['/products?active=yes', 'active', 'The active filter must be true or false.'],
      ['/products?name[]=a', 'name', expect.any(String)],
      ['/webhooks?url=', 'url', 'The url filter must not be empty.'],
    ])('refuses %s with 400 naming %s', async (path, field, message) => {
      const response = await get(path).expect(400);
      expect(response.body).toEqual({ message: 'Bad request.', errors: { [field]: [message] } });
    });
  });

  describe('audit trail', () => {
    it('names the company of each event and the user of the token that made it, in one page', async () => {
      const company = await createCompany(unique('Audited Names'));
      const token = await post('/tokens', {
        role: 'partner',
        user_name: 'Dora',
        company_id: company.id,
      }).expect(201);
      const response = await get(`/audit-events?company_id=${company.id}`).expect(200);
      expect(
        (response.body.data as Record<string, unknown>[]).map((event) => [
          event.action,
          event.company_id,
          event.company_name,
          event.user_name,
        ]),
      ).toEqual([
        ['token.issued', company.id, company.name, 'spec-admin'],
        ['company.created', company.id, company.name, 'spec-admin'],
      ]);
      expect(token.body.user_name).toBe('Dora');
    });

    it('gives null for an event of no company', async () => {
      await post('/tokens', { role: 'logistics', user_name: unique('courier') }).expect(201);
      const response = await get('/audit-events?per_page=1').expect(200);
      expect(response.body.data[0]).toMatchObject({
        action: 'token.issued',
        company_id: null,
        company_name: null,
      });
    });
  });
});
