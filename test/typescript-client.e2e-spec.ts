import type { Middleware } from 'openapi-fetch';
import {
  createRestaurantOrdersClient,
  type RestaurantOrdersClient,
  type Schema,
} from '../clients/typescript/src/index.js';
import { issueAdminToken, startApp, type TestApp } from './harness/app';
import { eventually } from './harness/eventually';
import { unique } from './harness/factories';
import { contractFor } from './harness/openapi-contract-hook';

/**
 * The generated client (clients/typescript, `npm run client:generate`) as a partner would use it, under
 * `strict` and without a cast: every operation of the document is called through it at least once (the last
 * test checks that), and every exchange is checked against the served document like a supertest one. A new
 * route is one more call in the test of its API.
 */

type Result<T> = Promise<{ data?: T; error?: unknown; response: Response }>;

/** The body of a successful call; anything else fails the test with the status and the error body. */
async function ok<T>(call: Result<T>): Promise<{ data: T; response: Response }> {
  const { data, error, response } = await call;
  if (data === undefined)
    throw new Error(`${response.url} answered ${response.status}: ${JSON.stringify(error)}`);
  return { data, response };
}

/** The order's version from the ETag of a response that returns an order, which must carry one. */
function etag(response: Response): string {
  const value = response.headers.get('etag');
  expect(value).toMatch(/^"\d+"$/);
  return value ?? '';
}

describe('the generated TypeScript client', () => {
  let service: TestApp;
  let admin: RestaurantOrdersClient;
  let partner: RestaurantOrdersClient;
  let logistics: RestaurantOrdersClient;
  let companyId: number;
  let product: Schema<'AdminProductResponse'>;
  /** The operations the tests called, by `METHOD /path` (the document's templates). */
  const called = new Set<string>();

  /** The JSON body each request sent, by openapi-fetch's request id: fetch consumes the request's own. */
  const sentBodies = new Map<string, unknown>();

  /** Records each call and checks it against the served document: the response always, the request when accepted. */
  const checked: Middleware = {
    async onRequest({ request, id }) {
      const text = await request.clone().text();
      // A file (a bulk import's NDJSON) is sent as the text it is; everything else is JSON.
      const file = request.headers.get('content-type')?.startsWith('application/x-ndjson');
      sentBodies.set(id, text ? (file ? text : (JSON.parse(text) as unknown)) : undefined);
    },
    async onResponse({ request, response, schemaPath, id }) {
      called.add(`${request.method} ${schemaPath}`);
      const contract = await contractFor(service.url);
      // A HEAD answer has headers only, whatever its Content-Type says.
      const text = request.method === 'HEAD' ? undefined : await response.clone().text();
      const json = response.headers.get('content-type')?.startsWith('application/json') && text;
      const mismatch =
        contract.check({
          method: request.method,
          url: request.url,
          status: response.status,
          contentType: response.headers.get('content-type') ?? undefined,
          body: json ? (JSON.parse(json) as unknown) : text,
        }) ??
        (response.ok
          ? contract.checkRequest({
              method: request.method,
              url: request.url,
              headers: Object.fromEntries(request.headers),
              body: sentBodies.get(id),
            })
          : undefined);
      sentBodies.delete(id);
      if (mismatch) throw new Error(`OpenAPI contract: ${mismatch}`);
      return response;
    },
  };

  const client = (token: string) => {
    const created = createRestaurantOrdersClient(service.url, token);
    created.use(checked);
    return created;
  };

  beforeAll(async () => {
    service = await startApp({
      env: { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_DISPATCHER: 'false', RATE_LIMIT_PER_MINUTE: '100000' },
    });
    admin = client(await issueAdminToken(service));
    // The site in any case (CONTRACT §1 stores it upper case).
    companyId = (
      await ok(admin.POST('/api/v2/admin/companies', { body: { name: unique('Bistro'), site: 'sk' } }))
    ).data.id;
    const issue = async (role: 'partner' | 'logistics') =>
      (
        await ok(
          admin.POST('/api/v2/admin/tokens', {
            body: { role, user_name: unique(role), company_id: role === 'partner' ? companyId : null },
          }),
        )
      ).data.token;
    partner = client(await issue('partner'));
    logistics = client(await issue('logistics'));
    product = (
      await ok(admin.POST('/api/v2/admin/products', { body: { name: unique('Terminal'), variations: [] } }))
    ).data;
  });

  afterAll(async () => {
    await service.stop();
  });

  /** A placement as a partner's code would build it, in the forms CONTRACT §2 allows. */
  const placement = (overrides: Partial<Schema<'PlaceOrderDto'>> = {}): Schema<'PlaceOrderDto'> => ({
    first_name: 'Jana',
    last_name: 'Nováková',
    consignee: 'Bistro Group',
    email: 'jana@example.com',
    phone: '+421900123456',
    zip: '81101',
    city: 'Bratislava',
    street: 'Obchodná',
    house_number: '12',
    product_id: product.id,
    login: 'bistro-12',
    password: 'device-secret',
    order_type: 'REGULAR',
    merchant_id: 'M-4411',
    ...overrides,
  });

  const place = async (overrides: Partial<Schema<'PlaceOrderDto'>> = {}): Promise<number> => {
    const { data } = await ok(partner.POST('/api/v2/order', { body: placement(overrides) }));
    return Number(data.orders[0].order_id);
  };

  it('drives the partner API: place, list, read, update and cancel with If-Match, comment, products, events', async () => {
    const regular = await place({ test: '0', retail: 1, dinein: 'false', oms_user_id: '17' });
    const exchange = await place({ order_type: 'EXCHANGE', original_order_id: String(regular) });

    const list = await ok(
      partner.GET('/api/v2/order', {
        params: {
          query: { order_type: 'EXCHANGE', delivered: 'false', created_from: '2020-01-01', page: 1 },
        },
      }),
    );
    expect(list.data.data.map((order) => order.order_id)).toEqual([exchange]);
    expect(list.response.headers.get('etag')).toBeNull();
    const alias = await ok(
      partner.GET('/api/v2/orders', { params: { query: { order_id: String(regular) } } }),
    );
    expect(alias.data.data[0].partner_comments).toEqual([]);

    const read = await ok(partner.GET('/api/v2/order/{id}', { params: { path: { id: regular } } }));
    expect(read.data.detailed_status).toBeNull();
    const updated = await ok(
      partner.POST('/api/v2/order/{id}/update', {
        params: { path: { id: regular }, header: { 'If-Match': etag(read.response) } },
        body: { city: 'Košice' },
      }),
    );
    expect(updated.data.orders[0].order_id).toBe(regular);
    const stale = await partner.POST('/api/v2/order/{id}/update', {
      params: { path: { id: regular }, header: { 'If-Match': etag(read.response) } },
      body: { city: 'Žilina' },
    });
    expect(stale.response.status).toBe(412);
    const cancelled = await ok(
      partner.POST('/api/v2/order/{id}/cancel', {
        params: { path: { id: regular }, header: { 'If-Match': etag(updated.response) } },
      }),
    );
    expect(cancelled.data.message).toBe('Order cancelled.');
    expect(etag(cancelled.response)).not.toBe(etag(updated.response));

    await ok(
      partner.POST('/api/v2/order/{id}/comment', {
        params: { path: { id: exchange } },
        body: { partner_comment: 'Before noon, please.' },
      }),
    );
    const products = await ok(partner.GET('/api/v2/product', { params: { query: { per_page: 25 } } }));
    expect(products.data.data.map(({ id }) => id)).toContain(product.id);

    // An event is listed once every transaction that started before it has finished, cluster-wide: read until
    // the placement is there.
    let placed: Schema<'OrderPlacedEvent'> | undefined;
    await eventually(
      async () => {
        const events = await ok(partner.GET('/api/v2/events', { params: { query: {} } }));
        // The union narrows on `type`: only an order.placed event has data.order_type.
        for (const event of events.data.data) if (event.type === 'order.placed') placed ??= event;
        return placed !== undefined;
      },
      () => 'No order.placed event in the feed',
      40_000,
    );
    expect(placed?.data.order_type).toBe('REGULAR');
  }, 90_000);

  it('drives the sandbox and the export: a test order simulated to completion, then downloaded', async () => {
    const id = await place({ test: true });
    const delivered = await ok(
      partner.POST('/api/v2/order/{id}/simulate', {
        params: { path: { id } },
        body: { to: 'DELIVERED' },
      }),
    );
    expect(delivered.data.state).toBe('DELIVERED');
    const completed = await ok(
      partner.POST('/api/v2/order/{id}/simulate', {
        params: { path: { id }, header: { 'If-Match': etag(delivered.response) } },
        body: { to: 'COMPLETED' },
      }),
    );
    expect(completed.data.trackings.map((tracking) => tracking.tracking_number)).toEqual([`TEST-${id}`]);

    const csv = await ok(
      partner.GET('/api/v2/orders/export', {
        params: { query: { format: 'csv', order_id: String(id) } },
        parseAs: 'text',
      }),
    );
    expect(csv.data.split('\r\n')[1]).toMatch(new RegExp(`^${id},`));
    const ndjson = await ok(
      partner.GET('/api/v2/orders/export', {
        params: { query: { format: 'ndjson', order_id: String(id) } },
        parseAs: 'text',
      }),
    );
    expect(JSON.parse(ndjson.data)).toMatchObject({ order_id: id, state: 'COMPLETED', test: true });
    const head = await partner.HEAD('/api/v2/orders/export', { params: { query: { format: 'csv' } } });
    expect(head.response.status).toBe(200);
    expect(head.response.headers.get('content-disposition')).toMatch(
      /^attachment; filename="orders-.+\.csv"$/,
    );
  });

  it('drives the logistics API, each write answering with the order version as ETag, usable as If-Match', async () => {
    const id = await place();
    const queue = await ok(logistics.GET('/api/v2/logistics/orders', { params: { query: {} } }));
    const queued = queue.data.data.find((order) => order.order_id === id);
    expect(queued?.state).toBe('PLACED');

    const sent = await ok(
      logistics.POST('/api/v2/logistics/orders/{id}/sent', {
        params: { path: { id }, header: { 'If-Match': `"${queued?.version}"` } },
      }),
    );
    expect(etag(sent.response)).toBe(`"${sent.data.version}"`);
    const tracking = await ok(
      logistics.PUT('/api/v2/logistics/orders/{id}/trackings/{trackingNumber}', {
        params: { path: { id, trackingNumber: 'PKG1' }, header: { 'If-Match': etag(sent.response) } },
        body: { status: 'Picked up', dispatch_date: '2026-11-21T08:00' },
      }),
    );
    expect(tracking.data.state).toBe('DISPATCHED');
    const status = await ok(
      logistics.POST('/api/v2/logistics/orders/{id}/detailed-statuses', {
        params: { path: { id }, header: { 'If-Match': etag(tracking.response) } },
        body: { status: 'Out for delivery', status_date: '2026-11-22T07:30:15', location: 'Bratislava' },
      }),
    );
    expect(status.data.detailed_status?.status_date).toBe('2026-11-22T07:30');
    const deliveryError = await ok(
      logistics.POST('/api/v2/logistics/orders/{id}/delivery-errors', {
        params: { path: { id }, header: { 'If-Match': etag(status.response) } },
        body: { status: 'Nobody home', date: '2026-11-22', resolution: 'Information' },
      }),
    );
    const patched = await ok(
      logistics.PATCH('/api/v2/logistics/orders/{id}', {
        params: { path: { id }, header: { 'If-Match': etag(deliveryError.response) } },
        body: { serial_number: 'SN-1' },
      }),
    );
    expect(patched.data.serial_number).toBe('SN-1');
    const read = await ok(partner.GET('/api/v2/order/{id}', { params: { path: { id } } }));
    expect(etag(read.response)).toBe(etag(patched.response));
  });

  it('drives the admin API', async () => {
    expect((await ok(admin.GET('/api/v2/admin/companies', {}))).data.data.map(({ id }) => id)).toContain(
      companyId,
    );
    const token = await ok(
      admin.POST('/api/v2/admin/tokens', {
        body: {
          role: 'partner',
          user_name: unique('alice'),
          company_id: String(companyId),
          expires_at: '2030-01-01',
        },
      }),
    );
    expect(
      (await ok(admin.GET('/api/v2/admin/tokens', { params: { query: { company_id: companyId } } }))).data
        .data,
    ).toEqual(expect.arrayContaining([expect.objectContaining({ id: token.data.id })]));
    expect(
      (await ok(admin.DELETE('/api/v2/admin/tokens/{id}', { params: { path: { id: token.data.id } } }))).data
        .revoked_at,
    ).not.toBeNull();
    await ok(admin.GET('/api/v2/admin/audit-events', { params: { query: { company_id: companyId } } }));
    const reader = await ok(
      admin.POST('/api/v2/admin/tokens', {
        body: { role: 'partner', user_name: unique('reader'), company_id: companyId, read_only: 'true' },
      }),
    );
    const rolled = await ok(
      admin.POST('/api/v2/admin/tokens/{id}/roll', {
        params: { path: { id: reader.data.id } },
        body: { previous_expires_at: '2020-01-01' },
      }),
    );
    expect(rolled.data).toMatchObject({ id: reader.data.id, read_only: true, rolled_at: expect.any(String) });
    expect(rolled.data.token).not.toBe(reader.data.token);

    // Names and filters (the console's): a company by id, the lists filtered, the audit trail naming companies.
    const named = await ok(
      admin.GET('/api/v2/admin/companies/{id}', { params: { path: { id: companyId } } }),
    );
    expect(
      (
        await ok(
          admin.GET('/api/v2/admin/companies', { params: { query: { name: named.data.name, site: 'sk' } } }),
        )
      ).data.data.map(({ id }) => id),
    ).toEqual([companyId]);
    expect(
      (
        await ok(
          admin.GET('/api/v2/admin/tokens', {
            params: {
              query: { company_id: companyId, user_name: 'READER', role: 'partner', state: 'active' },
            },
          }),
        )
      ).data.data.map(({ id }) => id),
    ).toEqual([reader.data.id]);
    await ok(admin.GET('/api/v2/admin/products', { params: { query: { name: 'x', active: 'false' } } }));
    await ok(
      admin.GET('/api/v2/admin/webhooks', { params: { query: { company_id: companyId, url: 'hooks' } } }),
    );
    expect(
      (await ok(admin.GET('/api/v2/admin/audit-events', { params: { query: { company_id: companyId } } })))
        .data.data[0].company_name,
    ).toBe(named.data.name);

    const renamed = await ok(
      admin.PATCH('/api/v2/admin/products/{id}', {
        params: { path: { id: product.id } },
        body: { name: unique('Renamed'), active: 'true' },
      }),
    );
    expect(renamed.data.active).toBe(true);
    await ok(
      admin.POST('/api/v2/admin/products/{id}/variations', {
        params: { path: { id: product.id } },
        body: { name: 'Black' },
      }),
    );
    const products = await ok(admin.GET('/api/v2/admin/products', { params: { query: { per_page: 25 } } }));
    const variations = products.data.data.find(({ id }) => id === product.id)?.variations;
    expect(variations?.map(({ name }) => name)).toEqual(['Black']);

    const webhook = await ok(
      admin.POST('/api/v2/admin/webhooks', {
        body: { company_id: companyId, url: 'http://127.0.0.1:9/hooks' },
      }),
    );
    expect(webhook.data.secret).toMatch(/^whsec_/);
    await ok(admin.GET('/api/v2/admin/webhooks', { params: { query: { company_id: companyId } } }));
    await place({ product_variation_id: variations?.[0].id });
    const deliveries = await ok(
      admin.GET('/api/v2/admin/webhooks/{id}/deliveries', { params: { path: { id: webhook.data.id } } }),
    );
    // A listed delivery's id is the retry's deliveryId as it is: one type for one id.
    const delivery = deliveries.data.data[0];
    const retried = await ok(
      admin.POST('/api/v2/admin/webhooks/{id}/deliveries/{deliveryId}/retry', {
        params: { path: { id: webhook.data.id, deliveryId: delivery.id } },
      }),
    );
    expect(retried.data).toMatchObject({ id: delivery.id, status: 'pending', attempt_count: 1 });
    const found = await ok(
      admin.GET('/api/v2/admin/webhooks/{id}/deliveries', {
        params: {
          path: { id: webhook.data.id },
          query: { status: 'pending', event_type: 'order.placed', event_id: delivery.event_id },
        },
      }),
    );
    expect(found.data.data.map(({ id }) => id)).toEqual([delivery.id]);
    const detail = await ok(
      admin.GET('/api/v2/admin/webhooks/{id}/deliveries/{deliveryId}', {
        params: { path: { id: webhook.data.id, deliveryId: delivery.id } },
      }),
    );
    expect(detail.data).toMatchObject({
      id: delivery.id,
      endpoint_id: webhook.data.id,
      company_id: companyId,
    });
    expect(detail.data.attempts[0].request_headers?.['webhook-id']).toBe(delivery.event_id);
    const path = { path: { id: webhook.data.id } };
    expect((await ok(admin.GET('/api/v2/admin/webhooks/{id}', { params: path }))).data.enabled).toBe(true);
    const settings = await ok(
      admin.PATCH('/api/v2/admin/webhooks/{id}', {
        params: path,
        body: { event_types: ['order.placed'], enabled: 'false' },
      }),
    );
    expect(settings.data).toMatchObject({ event_types: ['order.placed'], enabled: false });
    // Years ahead is past the 7-day bound: the client gets the 400 naming the field.
    const refused = await admin.POST('/api/v2/admin/webhooks/{id}/rotate-secret', {
      params: path,
      body: { previous_secret_expires_at: '2030-01-01' },
    });
    expect(refused.response.status).toBe(400);
    expect(refused.error).toMatchObject({ errors: { previous_secret_expires_at: [expect.any(String)] } });
    const rotation = await ok(
      admin.POST('/api/v2/admin/webhooks/{id}/rotate-secret', { params: path, body: {} }),
    );
    expect(rotation.data.secret).toMatch(/^whsec_/);
    await ok(admin.DELETE('/api/v2/admin/webhooks/{id}', { params: path }));

    expect((await ok(admin.GET('/health/live', {}))).data.status).toBe('ok');
    expect((await ok(admin.GET('/health/ready', {}))).data.info.database).toMatchObject({ status: 'up' });
  });

  it('drives the admin order lookup', async () => {
    const plain = await ok(
      admin.POST('/api/v2/admin/products', { body: { name: unique('Terminal'), variations: [] } }),
    );
    const id = await place({ product_id: plain.data.id });
    const read = await ok(partner.GET('/api/v2/order/{id}', { params: { path: { id } } }));
    const found = await ok(
      admin.GET('/api/v2/admin/orders', {
        params: { query: { order_ref: read.data.order_ref, company_id: companyId, state: 'PLACED' } },
      }),
    );
    expect(found.data.data.map(({ order, company }) => [order.order_id, company.id])).toEqual([
      [id, companyId],
    ]);
    const order = await ok(admin.GET('/api/v2/admin/orders/{id}', { params: { path: { id } } }));
    expect(order.data.order).toEqual(read.data);
    expect(order.data.timeline.map(({ kind, audit, event }) => audit?.action ?? event?.type ?? kind)).toEqual(
      ['order.placed', 'order.placed'],
    );
  });

  it("drives a partner's own webhook endpoints", async () => {
    const created = await ok(partner.POST('/api/v2/webhooks', { body: { url: 'http://127.0.0.1:9/own' } }));
    expect(created.data).toMatchObject({ company_id: companyId, enabled: true, event_types: null });
    const path = { path: { id: created.data.id } };
    const listed = await ok(partner.GET('/api/v2/webhooks', { params: { query: { per_page: 25 } } }));
    expect(listed.data.data.map(({ id }) => id)).toContain(created.data.id);
    await ok(partner.GET('/api/v2/webhooks/{id}', { params: path }));
    const changed = await ok(
      partner.PATCH('/api/v2/webhooks/{id}', {
        params: path,
        body: { event_types: ['order.placed', 'order.comment'] },
      }),
    );
    expect(changed.data.event_types).toEqual(['order.placed', 'order.comment']);
    const rotated = await ok(
      partner.POST('/api/v2/webhooks/{id}/rotate-secret', {
        params: path,
        body: { secret: created.data.secret },
      }),
    );
    expect(rotated.data.previous_secret_expires_at).not.toBeNull();
    // A product of its own: the admin test adds a variation to the shared one.
    const plain = await ok(
      admin.POST('/api/v2/admin/products', { body: { name: unique('Hooked'), variations: [] } }),
    );
    await place({ product_id: plain.data.id });
    const deliveries = await ok(partner.GET('/api/v2/webhooks/{id}/deliveries', { params: path }));
    const retried = await ok(
      partner.POST('/api/v2/webhooks/{id}/deliveries/{deliveryId}/retry', {
        params: { path: { id: created.data.id, deliveryId: deliveries.data.data[0].id } },
      }),
    );
    expect(retried.data).toMatchObject({ event_type: 'order.placed', attempt_count: 1 });
    expect((await ok(partner.DELETE('/api/v2/webhooks/{id}', { params: path }))).data.active).toBe(false);
  });

  it('drives a bulk import: the upload, the import, its results, and the admin views', async () => {
    const file = `${JSON.stringify(placement())}\n${JSON.stringify(placement({ product_id: 999_999 }))}\n`;
    const uploaded = await ok(
      partner.POST('/api/v2/orders/imports', {
        body: file,
        bodySerializer: (body) => body,
        headers: { 'Content-Type': 'application/x-ndjson' },
      }),
    );
    expect(uploaded.data).toMatchObject({ state: 'queued', total: 2 });
    const path = { path: { id: uploaded.data.id } };
    await eventually(
      async () =>
        (await ok(partner.GET('/api/v2/orders/imports/{id}', { params: path }))).data.state === 'completed',
      () => 'The import did not complete',
    );
    const listed = await ok(partner.GET('/api/v2/orders/imports', { params: { query: { per_page: 25 } } }));
    expect(listed.data.data[0]).toMatchObject({ id: uploaded.data.id, state: 'completed' });
    expect(listed.data.data[0].placed + listed.data.data[0].failed).toBe(2);
    const results = await ok(
      partner.GET('/api/v2/orders/imports/{id}/results', { params: path, parseAs: 'text' }),
    );
    const lines = results.data
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { line: number });
    expect(lines.map((line) => line.line)).toEqual([1, 2]);
    const all = await ok(
      admin.GET('/api/v2/admin/orders/imports', { params: { query: { company_id: companyId } } }),
    );
    expect(all.data.data.map(({ id }) => id)).toContain(uploaded.data.id);
    const one = await ok(admin.GET('/api/v2/admin/orders/imports/{id}', { params: path }));
    expect(one.data.company_id).toBe(companyId);
    const adminResults = await ok(
      admin.GET('/api/v2/admin/orders/imports/{id}/results', { params: path, parseAs: 'text' }),
    );
    expect(adminResults.data).toBe(results.data);
  });

  it("reads the request log: a company's requests, one by its id, the errors grouped, and the admin views", async () => {
    const missing = await partner.GET('/api/v2/order/{id}', { params: { path: { id: 2_147_483_647 } } });
    expect(missing.response.status).toBe(404);
    const query = { status: '404', route: '/api/v2/order/:id' };
    let logged: { request_id: string; status: number } | undefined;
    await eventually(
      async () => {
        logged = (await ok(partner.GET('/api/v2/requests', { params: { query } }))).data.data[0];
        return logged !== undefined;
      },
      () => 'The refused read did not reach the request log',
    );
    expect(logged!.status).toBe(404);
    const byId = { path: { request_id: logged!.request_id } };
    expect((await ok(partner.GET('/api/v2/requests/{request_id}', { params: byId }))).data).toMatchObject({
      request_id: logged!.request_id,
      status: 404,
    });
    const errors = await ok(partner.GET('/api/v2/requests/errors', { params: { query: {} } }));
    expect(errors.data.data.map((group) => group.status)).toContain(404);
    const adminQuery = { ...query, company_id: companyId };
    const all = await ok(admin.GET('/api/v2/admin/requests', { params: { query: adminQuery } }));
    expect(all.data.data.map(({ request_id }) => request_id)).toContain(logged!.request_id);
    await ok(admin.GET('/api/v2/admin/requests/{request_id}', { params: byId }));
    const adminErrors = await ok(
      admin.GET('/api/v2/admin/requests/errors', { params: { query: { company_id: companyId } } }),
    );
    expect(adminErrors.data.data.map((group) => group.status)).toContain(404);
  });

  it('has called every operation of the document', async () => {
    const document = (await (await fetch(`${service.url}/api/docs-json`)).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    const operations = Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(operations.filter((operation) => !called.has(operation))).toEqual([]);
  });
});
