import request from 'supertest';
import { issueAdminToken, startApp, type TestApp } from './harness/app';
import { contractFor } from './harness/openapi-contract-hook';

type Operation = {
  operationId?: string;
  parameters?: { name: string; in: string; required?: boolean }[];
  requestBody?: unknown;
  responses: Record<string, unknown>;
  security?: unknown[];
  summary?: string;
  description?: string;
};
type Document = {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, { properties?: Record<string, { example?: unknown }> }> };
};

/** The OpenAPI document is generated from the code; this checks it describes every route a partner or admin can call. */
describe('the OpenAPI document', () => {
  let service: TestApp;
  let document: Document;
  let adminToken: string;

  beforeAll(async () => {
    service = await startApp({ env: { ADMIN_RATE_LIMIT_PER_MINUTE: '100000' } });
    document = (await request(service.url).get('/api/docs-json').expect(200)).body as Document;
    adminToken = await issueAdminToken(service);
  });

  afterAll(async () => {
    await service.stop();
  });

  const ROUTES: [string, string, number[]][] = [
    ['post', '/api/v2/order', [201, 400, 401, 403, 409, 422, 429]],
    ['get', '/api/v2/order', [200, 400, 401, 403, 429]],
    ['get', '/api/v2/orders', [200, 400, 401, 403, 429]],
    ['get', '/api/v2/order/{id}', [200, 401, 403, 404, 429]],
    ['post', '/api/v2/order/{id}/update', [200, 400, 401, 403, 404, 409, 412, 422, 429]],
    ['post', '/api/v2/order/{id}/comment', [200, 400, 401, 403, 404, 409, 422, 429]],
    ['post', '/api/v2/order/{id}/cancel', [200, 401, 403, 404, 409, 412, 422, 429]],
    ['get', '/api/v2/events', [200, 400, 401, 403, 429]],
    ['get', '/api/v2/logistics/orders', [200, 400, 401, 403, 429]],
    ['post', '/api/v2/order/{id}/simulate', [200, 400, 401, 403, 404, 409, 412, 422, 429]],
    ['get', '/api/v2/orders/export', [200, 400, 401, 403, 429]],
    ['head', '/api/v2/orders/export', [200, 400, 401, 403, 429]],
    ['post', '/api/v2/orders/imports', [202, 400, 401, 403, 409, 415, 422, 429]],
    ['get', '/api/v2/orders/imports', [200, 400, 401, 403, 429]],
    ['get', '/api/v2/orders/imports/{id}', [200, 401, 403, 404, 429]],
    ['get', '/api/v2/orders/imports/{id}/results', [200, 401, 403, 404, 429]],
    ['post', '/api/v2/logistics/orders/{id}/sent', [200, 401, 403, 404, 409, 412, 429]],
    [
      'put',
      '/api/v2/logistics/orders/{id}/trackings/{trackingNumber}',
      [200, 201, 400, 401, 403, 404, 409, 412, 429],
    ],
    ['post', '/api/v2/logistics/orders/{id}/detailed-statuses', [201, 400, 401, 403, 404, 409, 412, 429]],
    ['post', '/api/v2/logistics/orders/{id}/delivery-errors', [201, 400, 401, 403, 404, 409, 412, 429]],
    ['patch', '/api/v2/logistics/orders/{id}', [200, 400, 401, 403, 404, 409, 412, 429]],
    ['get', '/api/v2/product', [200, 400, 401, 403, 429]],
    ['post', '/api/v2/admin/companies', [201, 400, 401, 403, 429]],
    ['get', '/api/v2/admin/companies', [200, 400, 401, 403, 429]],
    ['get', '/api/v2/admin/companies/{id}', [200, 401, 403, 404, 429]],
    ['post', '/api/v2/admin/tokens', [201, 400, 401, 403, 429]],
    ['get', '/api/v2/admin/tokens', [200, 400, 401, 403, 429]],
    ['delete', '/api/v2/admin/tokens/{id}', [200, 401, 403, 404, 429]],
    ['post', '/api/v2/admin/tokens/{id}/roll', [201, 400, 401, 403, 404, 409, 429]],
    ['get', '/api/v2/admin/audit-events', [200, 400, 401, 403, 429]],
    ['get', '/api/v2/admin/orders', [200, 400, 401, 403, 429]],
    ['get', '/api/v2/admin/orders/{id}', [200, 401, 403, 404, 429]],
    ['get', '/api/v2/admin/orders/imports', [200, 400, 401, 403, 429]],
    ['get', '/api/v2/admin/orders/imports/{id}', [200, 401, 403, 404, 429]],
    ['get', '/api/v2/admin/orders/imports/{id}/results', [200, 401, 403, 404, 429]],
    ['get', '/api/v2/admin/products', [200, 400, 401, 403, 429]],
    ['post', '/api/v2/admin/products', [201, 400, 401, 403, 429]],
    ['patch', '/api/v2/admin/products/{id}', [200, 400, 401, 403, 404, 429]],
    ['post', '/api/v2/admin/products/{id}/variations', [201, 400, 401, 403, 404, 429]],
    ['post', '/api/v2/admin/webhooks', [201, 400, 401, 403, 429]],
    ['get', '/api/v2/admin/webhooks', [200, 400, 401, 403, 429]],
    ['delete', '/api/v2/admin/webhooks/{id}', [200, 401, 403, 404, 429]],
    ['get', '/api/v2/admin/webhooks/{id}/deliveries', [200, 400, 401, 403, 404, 429]],
    ['get', '/api/v2/admin/webhooks/{id}/deliveries/{deliveryId}', [200, 401, 403, 404, 429]],
    ['post', '/api/v2/admin/webhooks/{id}/deliveries/{deliveryId}/retry', [200, 401, 403, 404, 409, 429]],
    ['get', '/api/v2/admin/webhooks/{id}', [200, 401, 403, 404, 429]],
    ['patch', '/api/v2/admin/webhooks/{id}', [200, 400, 401, 403, 404, 429]],
    ['post', '/api/v2/admin/webhooks/{id}/rotate-secret', [200, 400, 401, 403, 404, 429]],
    ['post', '/api/v2/webhooks', [201, 400, 401, 403, 429]],
    ['get', '/api/v2/webhooks', [200, 400, 401, 403, 429]],
    ['get', '/api/v2/webhooks/{id}', [200, 401, 403, 404, 429]],
    ['patch', '/api/v2/webhooks/{id}', [200, 400, 401, 403, 404, 429]],
    ['post', '/api/v2/webhooks/{id}/rotate-secret', [200, 400, 401, 403, 404, 429]],
    ['delete', '/api/v2/webhooks/{id}', [200, 401, 403, 404, 429]],
    ['get', '/api/v2/webhooks/{id}/deliveries', [200, 400, 401, 403, 404, 429]],
    ['post', '/api/v2/webhooks/{id}/deliveries/{deliveryId}/retry', [200, 401, 403, 404, 409, 429]],
    ['get', '/api/v2/requests', [200, 400, 401, 403, 429]],
    ['get', '/api/v2/requests/errors', [200, 400, 401, 403, 429]],
    ['get', '/api/v2/requests/{request_id}', [200, 401, 403, 404, 429]],
    ['get', '/api/v2/admin/requests', [200, 400, 401, 403, 429]],
    ['get', '/api/v2/admin/requests/errors', [200, 400, 401, 403, 429]],
    ['get', '/api/v2/admin/requests/{request_id}', [200, 401, 403, 404, 429]],
  ];

  it.each(ROUTES)(
    'describes %s %s with its responses, bearer auth, 500 and 503',
    (method, path, statuses) => {
      const operation = document.paths[path]?.[method];
      expect(operation).toBeDefined();
      expect(Object.keys(operation.responses)).toEqual(
        expect.arrayContaining([...statuses, 500, 503].map(String)),
      );
      expect(operation.security).toEqual([{ bearer: [] }]);
      expect(operation.summary ?? operation.description).toBeTruthy();
    },
  );

  it.each([
    ['post', '/api/v2/order', 'PlaceOrderDto'],
    ['post', '/api/v2/order/{id}/update', 'UpdateOrderDto'],
    ['post', '/api/v2/order/{id}/comment', 'CommentDto'],
    ['post', '/api/v2/admin/tokens', 'CreateTokenDto'],
    ['post', '/api/v2/order/{id}/simulate', 'SimulateOrderDto'],
    ['post', '/api/v2/admin/webhooks', 'CreateWebhookDto'],
    ['patch', '/api/v2/admin/webhooks/{id}', 'UpdateWebhookDto'],
    ['post', '/api/v2/admin/webhooks/{id}/rotate-secret', 'RotateWebhookSecretDto'],
    ['post', '/api/v2/webhooks', 'CreatePartnerWebhookDto'],
    ['post', '/api/v2/admin/tokens/{id}/roll', 'RollTokenDto'],
  ])('documents the body of %s %s as %s, with examples', (method, path, schema) => {
    expect(JSON.stringify(document.paths[path][method].requestBody)).toContain(
      `#/components/schemas/${schema}`,
    );
    const properties = document.components.schemas[schema]?.properties ?? {};
    expect(Object.keys(properties).length).toBeGreaterThan(0);
    if (schema !== 'UpdateOrderDto')
      expect(Object.values(properties).some((property) => property.example !== undefined)).toBe(true);
  });

  it('lists every placement field of the specification, corrected_order_ID spelled as in the spec', () => {
    const fields = Object.keys(document.components.schemas.PlaceOrderDto.properties!);
    expect(fields).toEqual(
      expect.arrayContaining([
        'first_name',
        'email',
        'product_variation_id',
        'original_order_id',
        'corrected_order_ID',
        'dinein',
        'details',
        'country',
      ]),
    );
  });

  it('documents both names of the comments array: comments for one order, partner_comments in lists', () => {
    expect(Object.keys(document.components.schemas.OrderResponse.properties!)).toContain('comments');
    expect(Object.keys(document.components.schemas.OrderListItemResponse.properties!)).toContain(
      'partner_comments',
    );
  });

  it.each([
    '/api/v2/order',
    '/api/v2/order/{id}/update',
    '/api/v2/order/{id}/comment',
    '/api/v2/order/{id}/cancel',
    '/api/v2/order/{id}/simulate',
  ])('documents the Idempotency-Key header of POST %s', (path) => {
    const parameters = (document.paths[path].post as { parameters?: { name: string; in: string }[] })
      .parameters;
    expect(parameters).toEqual(
      expect.arrayContaining([expect.objectContaining({ name: 'Idempotency-Key', in: 'header' })]),
    );
  });

  it('names every operation for a client method, once, and lists If-Match once and optional', () => {
    const operations = Object.values(document.paths).flatMap((methods) => Object.values(methods));
    const ids = operations.map((operation) => operation.operationId ?? '');
    expect(ids.filter((id) => !/^[a-z][A-Za-z]+$/.test(id))).toEqual([]);
    expect(new Set(ids).size).toBe(ids.length);
    for (const operation of operations) {
      const headers = (operation.parameters ?? []).filter((parameter) => parameter.in === 'header');
      expect(headers.filter((header) => header.name.toLowerCase() === 'if-match').length).toBeLessThanOrEqual(
        1,
      );
      expect(headers.filter((header) => header.required)).toEqual([]);
    }
  });

  // What the server refuses with 400, the document refuses too wherever a schema can say it (a client or a
  // validating proxy catches it before the call); the rules that need the database or the calendar cannot be.
  it.each([
    ['get', '/api/v2/admin/companies?page=1.5', undefined],
    ['get', '/api/v2/admin/companies?page=0', undefined],
    ['get', '/api/v2/admin/companies?per_page=26', undefined],
    ['get', '/api/v2/admin/audit-events?company_id=abc', undefined],
    ['get', '/api/v2/admin/orders?order_ref=SK0000123', undefined],
    ['get', '/api/v2/admin/orders?state=LOST', undefined],
    ['get', '/api/v2/admin/companies?site=SVK', undefined],
    ['get', '/api/v2/admin/tokens?state=gone', undefined],
    ['get', '/api/v2/admin/products?active=yes', undefined],
    ['post', '/api/v2/admin/companies', { name: 'Bistro', site: 'SVK' }],
    ['post', '/api/v2/admin/companies', { name: '   ', site: 'SK' }],
    ['post', '/api/v2/admin/companies', { site: 'SK' }],
    ['post', '/api/v2/admin/tokens', { role: 'root', user_name: 'alice' }],
    ['post', '/api/v2/admin/tokens', { role: 'admin', user_name: 'alice', expires_at: 'last week' }],
    ['post', '/api/v2/admin/products', { name: 'x'.repeat(256) }],
    ['patch', '/api/v2/admin/products/1', { active: 'yes' }],
    ['post', '/api/v2/admin/webhooks', { company_id: 1.5, url: 'https://hooks.example.com/x' }],
  ])('refuses %s %s %j, and so does the document', async (method, url, body) => {
    const call = request(service.url)
      [method as 'get' | 'post' | 'patch'](url)
      .set('Authorization', `Bearer ${adminToken}`);
    const response = await (body === undefined ? call : call.send(body));
    expect(response.status).toBe(400);
    const contract = await contractFor(service.url);
    expect(
      contract.checkRequest({
        method,
        url,
        headers: { 'content-type': 'application/json' },
        body,
      }),
    ).toBeDefined();
  });

  it('describes no route the service does not have, and every route it has', () => {
    const documented = Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.keys(methods).map((method) => `${method} ${path}`),
    );
    const known = ROUTES.map(([method, path]) => `${method} ${path}`).concat([
      'get /health/live',
      'get /health/ready',
    ]);
    expect(documented.sort()).toEqual(known.sort());
  });
});
