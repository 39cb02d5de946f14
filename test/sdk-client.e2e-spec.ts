import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  createRestaurantOrdersClient,
  type RestaurantOrdersClient,
  type RestaurantOrdersClientOptions,
  RestaurantOrdersError,
  type RetryEvent,
  type Schema,
  unwrap,
  type WebhookEvent,
} from '../clients/typescript/src/index.js';
import { fromDist, issueAdminToken, startApp, type TestApp } from './harness/app';
import { eventually } from './harness/eventually';
import { Fixtures, orderBody, type Partner } from './harness/factories';
import {
  resettingProxy,
  type Scripted,
  type ScriptedServer,
  scriptedServer,
  unusedPort,
} from './harness/fault-servers';

/**
 * The SDK (clients/typescript) as a partner's program runs it (CONTRACT §8): what is safe to send again is sent
 * again, with the same Idempotency-Key, and a failure without an answer is the SDK's own error; it names itself
 * in User-Agent, offers each operation as a method named by its operationId, and follows the events feed. Against
 * the service built in process and, for the failures a service does not produce on demand, local servers that
 * reset, refuse, hang or answer 5xx.
 */

const SDK_VERSION = (
  JSON.parse(readFileSync(join(__dirname, '..', 'clients', 'typescript', 'package.json'), 'utf8')) as {
    version: string;
  }
).version;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const CREATED = {
  message: 'Order created.',
  orders: [{ order_id: '7', order_ref: 'SK-0000007', order_type: 'REGULAR' }],
};

/** A client that records its retries. */
function recordingClient(url: string, token: string, options: RestaurantOrdersClientOptions = {}) {
  const retries: RetryEvent[] = [];
  const client = createRestaurantOrdersClient(url, token, {
    ...options,
    retry: { ...options.retry, onRetry: (retry) => retries.push(retry) },
  });
  return { client, retries };
}

/** The error a call rejects with (it must reject). */
async function rejection(call: Promise<unknown>): Promise<RestaurantOrdersError> {
  const error: unknown = await call.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(RestaurantOrdersError);
  return error as RestaurantOrdersError;
}

describe('the SDK against the service', () => {
  let app: TestApp;
  let fixtures: Fixtures;
  let partner: Partner;
  let productId: number;

  const placement = (): Schema<'PlaceOrderDto'> => orderBody(productId) as Schema<'PlaceOrderDto'>;

  const count = async (sql: string, companyId: number) =>
    Number((await app.db.query<{ n: string }>(sql, [companyId])).rows[0].n);

  beforeAll(async () => {
    app = await startApp({
      env: { SERVICE_ROLE: 'api', RATE_LIMIT_PER_MINUTE: '100000', ADMIN_RATE_LIMIT_PER_MINUTE: '100000' },
    });
    fixtures = new Fixtures(app.url, await issueAdminToken(app));
    partner = await fixtures.partner();
    productId = (await fixtures.product()).id;
  });

  afterAll(async () => {
    await app?.stop();
  });

  it('sends a placement whose answer was lost to a reset again, with the same Idempotency-Key: one order', async () => {
    const owner = await fixtures.partner();
    const proxy = await resettingProxy(app.url);
    try {
      const { client, retries } = recordingClient(proxy.url, owner.token);
      const { data, response } = await client.placeOrder({ body: placement() });
      expect({ status: response.status, replayed: response.headers.get('Idempotent-Replayed') }).toEqual({
        status: 201,
        replayed: 'true',
      });
      expect(proxy.resets()).toBe(1);
      expect(retries.map(({ status, error }) => [status, error?.kind])).toEqual([[null, 'network']]);
      const key = retries[0].request.headers.get('Idempotency-Key');
      expect(key).toMatch(UUID);
      expect(await count('SELECT count(*) AS n FROM orders WHERE company_id = $1', owner.companyId)).toBe(1);
      const keys = await app.db.query('SELECT key FROM idempotency_keys WHERE company_id = $1', [
        owner.companyId,
      ]);
      expect(keys.rows).toEqual([{ key }]);
      const order = await unwrap(
        client.getOrder({ params: { path: { id: Number(data?.orders[0].order_id) } } }),
      );
      expect(order.order_ref).toBe(data?.orders[0].order_ref);
    } finally {
      await proxy.close();
    }
  });

  it("keeps a caller's own Idempotency-Key, unchanged, across the tries", async () => {
    const owner = await fixtures.partner();
    const proxy = await resettingProxy(app.url);
    try {
      const key = `mine-${owner.companyId}`;
      const body = placement();
      const { client, retries } = recordingClient(proxy.url, owner.token);
      const placed = await unwrap(
        client.placeOrder({ body, params: { header: { 'Idempotency-Key': key } } }),
      );
      expect(retries).toHaveLength(1);
      expect(retries[0].request.headers.get('Idempotency-Key')).toBe(key);
      const keys = await app.db.query('SELECT key FROM idempotency_keys WHERE company_id = $1', [
        owner.companyId,
      ]);
      expect(keys.rows).toEqual([{ key }]);
      // The caller's own retry, later, with its key: the same answer, still one order.
      const again = await client.placeOrder({ body, params: { header: { 'Idempotency-Key': key } } });
      expect({ status: again.response.status, data: again.data }).toEqual({ status: 201, data: placed });
      expect(await count('SELECT count(*) AS n FROM orders WHERE company_id = $1', owner.companyId)).toBe(1);
    } finally {
      await proxy.close();
    }
  });

  it('offers the operations as methods named by their operationIds, typed as the path calls', async () => {
    const client = createRestaurantOrdersClient(app.url, partner.token);
    const placed = await unwrap(client.placeOrder({ body: placement() }));
    const id = Number(placed.orders[0].order_id);
    const read = await client.getOrder({ params: { path: { id } } });
    expect(read.data?.order_id).toBe(id);
    const etag = read.response.headers.get('ETag') ?? '';
    const updated = await unwrap(
      client.updateOrder({
        params: { path: { id }, header: { 'If-Match': etag } },
        body: { city: 'Košice' },
      }),
    );
    expect(updated.orders[0].order_id).toBe(id);
    const listed = await unwrap(client.listOrders({ params: { query: { order_id: String(id) } } }));
    expect(listed.data.map((order) => [order.order_id, order.city])).toEqual([[id, 'Košice']]);
    const cancelled = await unwrap(client.cancelOrder({ params: { path: { id } } }));
    expect(cancelled.message).toBe('Order cancelled.');
    const { rows } = await app.db.query('SELECT state, city FROM orders WHERE id = $1', [id]);
    expect(rows).toEqual([{ state: 'CANCELLED', city: 'Košice' }]);
    expect(typeof wrongCalls).toBe('function');
  });

  it('has a method for every operation of the served document, calling its method and path', async () => {
    const document = (await (await fetch(`${app.url}/api/docs-json`)).json()) as {
      paths: Record<string, Record<string, { operationId?: string; requestBody?: unknown }>>;
    };
    const server = await scriptedServer(() => ({ status: 200, body: {} }));
    try {
      const client = createRestaurantOrdersClient(server.url, 'token') as unknown as Record<
        string,
        (init: unknown) => Promise<unknown>
      >;
      const expected: string[] = [];
      for (const [path, operations] of Object.entries(document.paths)) {
        for (const [method, operation] of Object.entries(operations)) {
          const name = operation.operationId ?? `${method} ${path} without an operationId`;
          expect({ name, type: typeof client[name] }).toEqual({ name, type: 'function' });
          const ids = Object.fromEntries([...path.matchAll(/\{(\w+)\}/g)].map(([, param]) => [param, 1]));
          await client[name]({ params: { path: ids }, ...(operation.requestBody ? { body: {} } : {}) });
          expected.push(`${method.toUpperCase()} ${path.replace(/\{\w+\}/g, '1')}`);
        }
      }
      expect(server.requests.map(({ method, url }) => `${method} ${url}`)).toEqual(expected);
    } finally {
      await server.close();
    }
  });

  it('names itself in User-Agent, unless the caller names its program, and not in a browser', async () => {
    const server = await scriptedServer(() => ({ status: 200, body: { status: 'ok' } }));
    const scope = globalThis as { document?: unknown };
    try {
      await createRestaurantOrdersClient(server.url, 'token').getLiveness();
      await createRestaurantOrdersClient(server.url, 'token', {
        headers: { 'User-Agent': 'bistro/2' },
      }).getLiveness();
      scope.document = {};
      await createRestaurantOrdersClient(server.url, 'token').getLiveness();
      expect(server.requests.map(({ headers }) => headers['user-agent'])).toEqual([
        `restaurant-orders-sdk/${SDK_VERSION}`,
        'bistro/2',
        'node',
      ]);
    } finally {
      delete scope.document;
      await server.close();
    }
  });

  describe('the events feed', () => {
    let owner: Partner;
    let client: RestaurantOrdersClient;
    /** The feed's pages as the client asked for them: the query, and the ids of the events answered. */
    let pages: { query: string; ids: string[] }[];
    /** The company's events as the follower of the first test read them. */
    let events: WebhookEvent[];

    beforeAll(async () => {
      owner = await fixtures.partner();
      client = createRestaurantOrdersClient(app.url, owner.token);
      // More than one page of the feed (100 events): each placement is one order.placed event.
      for (let n = 0; n < 101; n += 1) await unwrap(client.placeOrder({ body: placement() }));
      client.use({
        onResponse: async ({ request, response }) => {
          if (new URL(request.url).pathname !== '/api/v2/events' || !response.ok) return;
          const { data } = (await response.clone().json()) as { data: WebhookEvent[] };
          pages.push({ query: new URL(request.url).search, ids: data.map((event) => event.id) });
        },
      });
    });

    beforeEach(() => {
      pages = [];
    });

    /** Every event a feed yields until `until` says stop (then its signal aborts), or until the feed ends. */
    async function read(
      feed: (signal: AbortSignal) => AsyncIterable<WebhookEvent>,
      until: (events: WebhookEvent[]) => boolean = () => false,
    ): Promise<WebhookEvent[]> {
      const controller = new AbortController();
      const yielded: WebhookEvent[] = [];
      try {
        for await (const event of feed(controller.signal)) {
          yielded.push(event);
          if (until(yielded)) controller.abort();
        }
      } finally {
        controller.abort();
      }
      return yielded;
    }

    it('yields every event once, in feed order, asking page after page for what follows the last one', async () => {
      // Following, as an event is listed only once every transaction older than it has ended, cluster-wide.
      events = await read(
        (signal) => client.events({ follow: true, pollIntervalMs: 50, signal }),
        (yielded) => yielded.length === 101,
      );
      const { rows } = await app.db.query<{ id: string }>(
        'SELECT id FROM events WHERE company_id = $1 ORDER BY transaction_id, id',
        [owner.companyId],
      );
      expect(rows).toHaveLength(101);
      expect(events.map((event) => event.id)).toEqual(rows.map(({ id }) => `evt_${id}`));
      expect(events.every((event) => event.type === 'order.placed')).toBe(true);
      // The first page is the oldest; each next one asks for what follows the last event read so far.
      expect(pages[0].query).toBe('');
      pages.slice(1).forEach((page, n) => {
        const before = pages.slice(0, n + 1).flatMap(({ ids }) => ids);
        expect(page.query).toBe(`?after=${before.at(-1)}`);
      });
      expect(pages.flatMap((page) => page.ids)).toEqual(events.map((event) => event.id));
      expect(Math.max(...pages.map((page) => page.ids.length))).toBeLessThanOrEqual(100);
      expect(pages.filter((page) => page.ids.length > 0).length).toBeGreaterThanOrEqual(2);
    });

    it('without follow, ends at the end of the feed: the first empty page', async () => {
      expect((await read(() => client.events({ after: events[49].id }))).map((event) => event.id)).toEqual(
        events.slice(50).map((event) => event.id),
      );
      expect(pages.at(-1)).toEqual({ query: `?after=${events[100].id}`, ids: [] });
      pages = [];
      expect(await read(() => client.events({ after: events[100].id }))).toEqual([]);
      expect(pages).toEqual([{ query: `?after=${events[100].id}`, ids: [] }]);
    });

    it('with follow, keeps polling at the end for new events, and ends quietly when its signal aborts', async () => {
      let placed = 0;
      const following = read(
        (signal) => client.events({ after: events[100].id, follow: true, pollIntervalMs: 50, signal }),
        (yielded) => yielded.some((event) => 'order_id' in event.data && event.data.order_id === placed),
      );
      await eventually(
        () => pages.length >= 2,
        () => 'The follower did not ask again at the end of the feed',
      );
      expect(pages.slice(0, 2)).toEqual([
        { query: `?after=${events[100].id}`, ids: [] },
        { query: `?after=${events[100].id}`, ids: [] },
      ]);
      placed = Number((await unwrap(client.placeOrder({ body: placement() }))).orders[0].order_id);
      const followed = await following;
      expect(
        followed.map((event) => [event.type, 'order_id' in event.data ? event.data.order_id : null]),
      ).toEqual([['order.placed', placed]]);
      const asked = pages.length;
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(pages).toHaveLength(asked);
    });
  });
});

describe('the SDK when no answer comes, or a 5xx: what is safe to send again is sent again', () => {
  let server: ScriptedServer | undefined;

  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  const serve = async (script: (n: number) => Scripted) => (server = await scriptedServer(script));
  const keys = () => server?.requests.map(({ headers }) => headers['idempotency-key']) ?? [];
  const createCompany = (client: RestaurantOrdersClient) =>
    client.createCompany({ body: { name: 'Bistro', site: 'SK' } });
  const placeOrder = (client: RestaurantOrdersClient) =>
    client.placeOrder({ body: orderBody(1) as Schema<'PlaceOrderDto'> });

  it('throws its own error, of kind network, when nothing listens: a read is tried three times', async () => {
    const { client, retries } = recordingClient(`http://127.0.0.1:${await unusedPort()}`, 'token');
    const error = await rejection(client.getOrder({ params: { path: { id: 1 } } }));
    expect(error).toMatchObject({ kind: 'network', status: null, response: null, body: undefined });
    expect(error.message).toMatch(
      /^Network failure \(ECONNREFUSED\): GET http:\/\/127\.0\.0\.1:\d+\/api\/v2\/order\/1$/,
    );
    expect(error.cause).toMatchObject({ name: 'TypeError', message: 'fetch failed' });
    expect(error.requestId).toMatch(UUID);
    expect(retries.map(({ attempt, status, error: failure }) => [attempt, status, failure?.kind])).toEqual([
      [1, null, 'network'],
      [2, null, 'network'],
    ]);
  });

  it('sends a keyed write again after a reset with the same key, and a write without a key never', async () => {
    await serve(() => 'reset');
    const { client } = recordingClient(server!.url, 'token');
    expect(await rejection(placeOrder(client))).toMatchObject({ kind: 'network', status: null });
    expect(keys()).toHaveLength(3);
    expect(new Set(keys()).size).toBe(1);
    expect(keys()[0]).toMatch(UUID);
    const requestIds = server!.requests.map(({ headers }) => headers['x-request-id']);
    expect(new Set(requestIds).size).toBe(3);

    server!.requests.length = 0;
    expect(await rejection(createCompany(client))).toMatchObject({ kind: 'network' });
    expect(server!.requests.map(({ method, url }) => `${method} ${url}`)).toEqual([
      'POST /api/v2/admin/companies',
    ]);
  });

  it('sends a read again after a 503 and a 500, a keyed write after a 500, a write without a key not after a 500', async () => {
    await serve((n) =>
      n === 0
        ? { status: 503, body: { message: 'Service unavailable.' } }
        : n === 1
          ? { status: 500 }
          : { status: 200, body: { status: 'ok' } },
    );
    const { client, retries } = recordingClient(server!.url, 'token');
    expect((await unwrap(client.getLiveness())).status).toBe('ok');
    expect(retries.map(({ status }) => status)).toEqual([503, 500]);

    await server!.close();
    await serve((n) =>
      n === 0 ? { status: 500, body: { message: 'Server error.' } } : { status: 201, body: CREATED },
    );
    const writer = recordingClient(server!.url, 'token').client;
    expect(await unwrap(placeOrder(writer))).toEqual(CREATED);
    expect(keys()).toHaveLength(2);
    expect(keys()[0]).toBe(keys()[1]);

    server!.requests.length = 0;
    const error = await rejection(unwrap(createCompany(writer)));
    expect(error).toMatchObject({ kind: 'response', status: 500, body: { message: 'Server error.' } });
    expect(error.requestId).toBe(server!.requests[0].headers['x-request-id']);
    expect(server!.requests).toHaveLength(1);
  });

  it("sends a keyed write again while its key's first request is still running (409), then gets its answer", async () => {
    await serve((n) =>
      n === 0
        ? {
            status: 409,
            body: {
              message:
                'A request with this Idempotency-Key is still being processed: retry once it has finished.',
            },
          }
        : { status: 201, body: CREATED },
    );
    const { client } = recordingClient(server!.url, 'token');
    expect(await unwrap(placeOrder(client))).toEqual(CREATED);
    expect(keys()).toHaveLength(2);

    await server!.close();
    await serve(() => ({
      status: 409,
      body: { message: 'Order can no longer be cancelled: it has been cancelled.' },
    }));
    const canceller = recordingClient(server!.url, 'token').client;
    const error = await rejection(unwrap(canceller.cancelOrder({ params: { path: { id: 1 } } })));
    expect(error).toMatchObject({ kind: 'response', status: 409 });
    expect(server!.requests).toHaveLength(1);
  });

  it('gives up on a try after timeoutMs: a keyed write is tried again with its key, a write without one is not', async () => {
    await serve(() => 'hang');
    const { client, retries } = recordingClient(server!.url, 'token', {
      timeoutMs: 500,
      retry: { maxRetries: 1 },
    });
    const started = Date.now();
    const error = await rejection(placeOrder(client));
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
    expect(error).toMatchObject({ kind: 'timeout', status: null, response: null });
    expect(error.message).toMatch(/^No answer in time: POST http:\/\/127\.0\.0\.1:\d+\/api\/v2\/order$/);
    expect(error.requestId).toBe(server!.requests[1].headers['x-request-id']);
    expect(retries.map(({ error: failure }) => failure?.kind)).toEqual(['timeout']);
    expect(keys()).toHaveLength(2);
    expect(keys()[0]).toBe(keys()[1]);

    server!.requests.length = 0;
    expect(await rejection(createCompany(client))).toMatchObject({ kind: 'timeout' });
    expect(server!.requests).toHaveLength(1);
  });

  it("throws the caller's own abort as it is, without another try", async () => {
    await serve(() => 'hang');
    const { client, retries } = recordingClient(server!.url, 'token');
    const controller = new AbortController();
    const call = client.getLiveness({ signal: controller.signal });
    await eventually(
      () => server!.requests.length === 1,
      () => 'The request did not arrive',
    );
    controller.abort();
    await expect(call).rejects.toMatchObject({ name: 'AbortError' });
    expect(retries).toEqual([]);
  });
});

/** Calls that must not compile, as their path calls do not (checked by `npm run typecheck`); never run. */
function wrongCalls(client: RestaurantOrdersClient) {
  // @ts-expect-error a placement needs every required field
  void client.placeOrder({ body: { first_name: 'Jana' } });
  // @ts-expect-error an order is read by its id
  void client.getOrder();
  // @ts-expect-error the id is an integer
  void client.getOrder({ params: { path: { id: 'one' } } });
  // @ts-expect-error order_type is one of REGULAR, EXCHANGE, RETURN
  void client.listOrders({ params: { query: { order_type: 'GIFT' } } });
}

describe('the SDK’s importOrders: uploads a file, waits for the import, yields each line’s result', () => {
  let app: TestApp;
  let fixtures: Fixtures;
  let productId: number;

  beforeAll(async () => {
    app = await startApp({
      env: {
        RATE_LIMIT_PER_MINUTE: '100000',
        ADMIN_RATE_LIMIT_PER_MINUTE: '100000',
        IMPORT_POLL_INTERVAL_MS: '50',
      },
    });
    fixtures = new Fixtures(app.url, await issueAdminToken(app));
    productId = (await fixtures.product()).id;
  });

  afterAll(async () => {
    await app?.stop();
  });

  const collect = async <T>(results: AsyncIterable<T>): Promise<T[]> => {
    const all: T[] = [];
    for await (const result of results) all.push(result);
    return all;
  };
  const ordersOf = async (companyId: number) =>
    Number(
      (
        await app.db.query<{ n: string }>('SELECT count(*) AS n FROM orders WHERE company_id = $1', [
          companyId,
        ])
      ).rows[0].n,
    );

  it('places the good lines and yields, in line order, an order id or exactly POST /order’s errors', async () => {
    const partner = await fixtures.partner();
    const client = createRestaurantOrdersClient(app.url, partner.token);
    const file = [orderBody(productId), orderBody(productId, { product_id: 999_999 }), orderBody(productId)]
      .map((body) => JSON.stringify(body))
      .join('\n');
    const states: string[] = [];
    const results = await collect(
      client.importOrders(file, {
        pollIntervalMs: 50,
        onProgress: (progress) => states.push(progress.state),
      }),
    );
    expect(results.map((result) => result.line)).toEqual([1, 2, 3]);
    expect(results[0].order_id).toEqual(expect.any(Number));
    expect(results[1]).toEqual({ line: 2, errors: { product_id: ['The selected product id is invalid.'] } });
    expect(states[0]).toBe('queued');
    expect(states.at(-1)).toBe('completed');
    expect(await ordersOf(partner.companyId)).toBe(2);
  });

  it('a dry run of a CSV places nothing; the same key again is the same import', async () => {
    const partner = await fixtures.partner();
    const client = createRestaurantOrdersClient(app.url, partner.token);
    const { IMPORT_CSV_COLUMNS } =
      fromDist<typeof import('../src/imports/import-file')>('imports/import-file');
    const body = orderBody(productId) as Record<string, string | number | undefined>;
    const csv = `${IMPORT_CSV_COLUMNS.join(',')}\n${IMPORT_CSV_COLUMNS.map((column) => String(body[column] ?? '')).join(',')}\n`;
    const options = {
      format: 'csv',
      dryRun: true,
      idempotencyKey: `dry-${partner.companyId}`,
      pollIntervalMs: 50,
    } as const;
    expect(await collect(client.importOrders(csv, options))).toEqual([{ line: 1 }]);
    expect(await collect(client.importOrders(csv, options))).toEqual([{ line: 1 }]);
    const imports = await app.db.query('SELECT count(*)::int AS n FROM order_imports WHERE company_id = $1', [
      partner.companyId,
    ]);
    expect(imports.rows[0].n).toBe(1);
    expect(await ordersOf(partner.companyId)).toBe(0);
  });

  it('throws a RestaurantOrdersError for a file the service refuses whole', async () => {
    const partner = await fixtures.partner();
    const client = createRestaurantOrdersClient(app.url, partner.token);
    const error = await collect(client.importOrders('', { pollIntervalMs: 50 })).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(RestaurantOrdersError);
    expect(error).toMatchObject({ status: 400, body: { errors: { file: ['The file has no order.'] } } });
  });
});
