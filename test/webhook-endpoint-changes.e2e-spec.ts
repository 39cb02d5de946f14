import request from 'supertest';
import { issueAdminToken, startApp, type TestApp } from './harness/app';
import { eventually } from './harness/eventually';
import { Fixtures, orderBody, type Partner } from './harness/factories';
import { FAST_DISPATCH, startWebhookReceiver, type WebhookReceiver } from './harness/webhook-receiver';

const NOT_FOUND = { message: 'Webhook not found.' };
const LIMIT_REACHED = {
  message:
    'The company already has 20 webhook endpoints, the most it may have: delete one before registering another.',
};
const PRIVATE_REFUSED =
  'The url must not point to a loopback, private or link-local address (for local testing, start the service with WEBHOOK_ALLOW_PRIVATE=true).';

/**
 * What a partner or an admin changes about endpoints (CONTRACT §5, §6): at most 20 per company, a new URL under
 * the registration's rules, and a deleted endpoint missing on every route.
 */
describe('webhook endpoints: the limit per company, a new URL, and deletion (CONTRACT §5, §6)', () => {
  let service: TestApp;
  /** The same database, without WEBHOOK_ALLOW_PRIVATE and without a dispatcher: URL rules as in production. */
  let strict: TestApp;
  let receiver: WebhookReceiver;
  let admin: string;
  let fixtures: Fixtures;
  let productId: number;

  const api = (app: TestApp = service) => request(app.url);
  const as = (token: string) => ({ Authorization: `Bearer ${token}` });

  const registerAsPartner = (partner: Partner, path: string) =>
    api()
      .post('/api/v2/webhooks')
      .set(as(partner.token))
      .send({ url: `${receiver.url}${path}` });

  async function endpointOf(partner: Partner, path: string): Promise<number> {
    const response = await registerAsPartner(partner, path);
    expect(response.status).toBe(201);
    return response.body.id as number;
  }

  const countEndpoints = async (companyId: number): Promise<number> =>
    Number(
      (
        await service.db.query(
          'SELECT count(*) AS n FROM webhook_endpoints WHERE company_id = $1 AND deleted_at IS NULL',
          [companyId],
        )
      ).rows[0].n,
    );

  const urlOf = async (endpointId: number): Promise<string> =>
    (await service.db.query<{ url: string }>('SELECT url FROM webhook_endpoints WHERE id = $1', [endpointId]))
      .rows[0].url;

  async function place(partner: Partner): Promise<number> {
    const response = await api().post('/api/v2/order').set(as(partner.token)).send(orderBody(productId));
    expect(response.status).toBe(201);
    return Number(response.body.orders[0].order_id);
  }

  beforeAll(async () => {
    receiver = await startWebhookReceiver((incoming) => (incoming.path.startsWith('/failing') ? 500 : 200));
    service = await startApp({ env: FAST_DISPATCH });
    strict = await startApp({
      env: { DATABASE_URL: service.databaseUrl, SERVICE_ROLE: 'api', RATE_LIMIT_PER_MINUTE: '100000' },
    });
    admin = await issueAdminToken(service);
    fixtures = new Fixtures(service.url, admin);
    productId = (await fixtures.product()).id;
  });

  afterAll(async () => {
    await strict?.stop();
    await service?.stop();
    await receiver?.close();
  });

  describe('at most 20 endpoints per company', () => {
    it('refuses a 21st with 409 naming the limit, to a partner and to an admin; a deleted one frees a place', async () => {
      const partner = await fixtures.partner();
      const endpoints: number[] = [];
      for (let index = 0; index < 20; index += 1)
        endpoints.push(await endpointOf(partner, `/limit-${index}`));

      await registerAsPartner(partner, '/limit-21').expect(409, LIMIT_REACHED);
      await api()
        .post('/api/v2/admin/webhooks')
        .set(as(admin))
        .send({ company_id: partner.companyId, url: `${receiver.url}/limit-21` })
        .expect(409, LIMIT_REACHED);
      expect(await countEndpoints(partner.companyId)).toBe(20);
      // Another company is not concerned.
      await endpointOf(await fixtures.partner(), '/limit-other');

      await api().delete(`/api/v2/webhooks/${endpoints[0]}`).set(as(partner.token)).expect(200);
      await endpointOf(partner, '/limit-21');
      await registerAsPartner(partner, '/limit-22').expect(409, LIMIT_REACHED);
      expect(await countEndpoints(partner.companyId)).toBe(20);
    });

    it('never lets registrations made at the same time pass the limit together', async () => {
      const partner = await fixtures.partner();
      for (let index = 0; index < 18; index += 1) await endpointOf(partner, `/race-${index}`);

      const answers = await Promise.all(
        Array.from({ length: 6 }, (_, index) => registerAsPartner(partner, `/race-extra-${index}`)),
      );

      expect(answers.map((answer) => answer.status).sort()).toEqual([201, 201, 409, 409, 409, 409]);
      expect(await countEndpoints(partner.companyId)).toBe(20);
    });
  });

  describe("changing an endpoint's URL", () => {
    it('sends the next events to the new URL, for a partner and an admin, and audits the change', async () => {
      const partner = await fixtures.partner();
      const endpoint = await endpointOf(partner, '/before');

      const changed = await api()
        .patch(`/api/v2/webhooks/${endpoint}`)
        .set(as(partner.token))
        .send({ url: `${receiver.url}/after` })
        .expect(200);
      expect(changed.body).toMatchObject({ id: endpoint, url: `${receiver.url}/after`, enabled: true });
      expect(await urlOf(endpoint)).toBe(`${receiver.url}/after`);
      const orderId = await place(partner);
      await receiver.waitFor(() =>
        receiver.at('/after').some((entry) => entry.body.includes(`"order_id":${orderId}`)),
      );
      expect(receiver.at('/before')).toEqual([]);

      await api()
        .patch(`/api/v2/admin/webhooks/${endpoint}`)
        .set(as(admin))
        .send({ url: `${receiver.url}/by-admin`, enabled: true })
        .expect(200)
        .expect((response) => expect(response.body.url).toBe(`${receiver.url}/by-admin`));
      expect(await urlOf(endpoint)).toBe(`${receiver.url}/by-admin`);
      const audit = await service.db.query(
        `SELECT action, changed_fields FROM audit_events WHERE target_type = 'webhook' AND target_id = $1 ORDER BY id`,
        [String(endpoint)],
      );
      expect(audit.rows).toEqual([
        { action: 'webhook.created', changed_fields: ['secret', 'url'] },
        { action: 'webhook.updated', changed_fields: ['url'] },
        { action: 'webhook.updated', changed_fields: ['url'] },
      ]);
    });

    it('sends the deliveries waiting for a retry to the new URL', async () => {
      const partner = await fixtures.partner();
      const endpoint = await endpointOf(partner, '/failing');
      const orderId = await place(partner);
      const ofOrder = (path: string) =>
        receiver.at(path).filter((entry) => entry.body.includes(`"order_id":${orderId}`));
      await receiver.waitFor(() => ofOrder('/failing').length >= 1);

      await api()
        .patch(`/api/v2/webhooks/${endpoint}`)
        .set(as(partner.token))
        .send({ url: `${receiver.url}/mended` })
        .expect(200);

      await receiver.waitFor(() => ofOrder('/mended').length === 1);
      await eventually(
        async () =>
          (await service.db.query('SELECT status FROM webhook_deliveries WHERE endpoint_id = $1', [endpoint]))
            .rows[0].status === 'succeeded',
        () => 'the delivery did not succeed at the new URL',
      );
    });

    const refused: [string, unknown, string][] = [
      ['loopback', 'http://127.0.0.1:8080/hook', PRIVATE_REFUSED],
      ['private', 'http://10.0.0.5/hook', PRIVATE_REFUSED],
      ['link-local metadata', 'http://169.254.169.254/latest/meta-data', PRIVATE_REFUSED],
      ['IPv4-mapped', 'http://[::ffff:127.0.0.1]/hook', PRIVATE_REFUSED],
      ['IPv4-compatible', 'http://[::7f00:1]/hook', PRIVATE_REFUSED],
      ['NAT64', 'http://[64:ff9b::a00:5]/hook', PRIVATE_REFUSED],
      ['6to4', 'http://[2002:c0a8:10a::1]/hook', PRIVATE_REFUSED],
      ['Teredo', 'http://[2001:0:a00:5::1]/hook', PRIVATE_REFUSED],
      ['another scheme', 'ftp://hooks.example.com/', 'The url must use http or https.'],
      ['credentials', 'https://user:pw@hooks.example.com/', 'The url may not carry a user name or password.'],
      ['not a URL', 'hooks', 'The url must be an absolute http or https URL.'],
      ['a number', 42, 'The url must be a string.'],
      ['null', null, 'The url field is required.'],
      ['blank', '   ', 'The url field is required.'],
      [
        'too long',
        `https://hooks.example.com/${'a'.repeat(2030)}`,
        'The url may not be greater than 2048 characters.',
      ],
    ];

    it.each(refused)(
      'refuses a %s URL with 400 naming url, and changes nothing',
      async (_label, url, message) => {
        const partner = await fixtures.partner();
        const endpoint = await endpointOf(partner, '/kept');
        for (const [path, token] of [
          [`/api/v2/webhooks/${endpoint}`, partner.token],
          [`/api/v2/admin/webhooks/${endpoint}`, admin],
        ]) {
          const response = await api(strict).patch(path).set(as(token)).send({ url, enabled: false });
          expect([path, response.status, response.body]).toEqual([
            path,
            400,
            { message: 'Bad request.', errors: { url: [message] } },
          ]);
        }
        expect(await urlOf(endpoint)).toBe(`${receiver.url}/kept`);
        const row = await service.db.query('SELECT disabled_at FROM webhook_endpoints WHERE id = $1', [
          endpoint,
        ]);
        expect(row.rows[0].disabled_at).toBeNull();
      },
    );
  });

  describe('a deleted endpoint', () => {
    it('is missing (404) on every route, the partner’s and the admin’s, its log and its deliveries too', async () => {
      const partner = await fixtures.partner();
      const endpoint = await endpointOf(partner, '/failing-deleted');
      await place(partner);
      await receiver.waitFor(() => receiver.at('/failing-deleted').length >= 1);
      const [{ id: deliveryId }] = (
        await service.db.query('SELECT id FROM webhook_deliveries WHERE endpoint_id = $1', [endpoint])
      ).rows;
      await api().delete(`/api/v2/webhooks/${endpoint}`).set(as(partner.token)).expect(200);
      const sent = receiver.at('/failing-deleted').length;

      const partnerRoutes = [
        ['get', `/api/v2/webhooks/${endpoint}`, undefined],
        ['patch', `/api/v2/webhooks/${endpoint}`, { enabled: false }],
        ['post', `/api/v2/webhooks/${endpoint}/rotate-secret`, {}],
        ['delete', `/api/v2/webhooks/${endpoint}`, undefined],
        ['get', `/api/v2/webhooks/${endpoint}/deliveries`, undefined],
        ['post', `/api/v2/webhooks/${endpoint}/deliveries/${deliveryId}/retry`, undefined],
      ] as const;
      const adminRoutes = [
        ['get', `/api/v2/admin/webhooks/${endpoint}`, undefined],
        ['patch', `/api/v2/admin/webhooks/${endpoint}`, { url: `${receiver.url}/revived` }],
        ['post', `/api/v2/admin/webhooks/${endpoint}/rotate-secret`, {}],
        ['delete', `/api/v2/admin/webhooks/${endpoint}`, undefined],
        ['get', `/api/v2/admin/webhooks/${endpoint}/deliveries`, undefined],
        ['get', `/api/v2/admin/webhooks/${endpoint}/deliveries/${deliveryId}`, undefined],
        ['post', `/api/v2/admin/webhooks/${endpoint}/deliveries/${deliveryId}/retry`, undefined],
      ] as const;
      for (const [routes, token] of [
        [partnerRoutes, partner.token],
        [adminRoutes, admin],
      ] as const) {
        for (const [method, path, body] of routes) {
          const response = await api()[method](path).set(as(token)).send(body);
          expect([method, path, response.status, response.body]).toEqual([method, path, 404, NOT_FOUND]);
        }
      }
      expect(receiver.at('/failing-deleted')).toHaveLength(sent);
      expect(await urlOf(endpoint)).toBe(`${receiver.url}/failing-deleted`);
    });
  });
});
