import { fromDist, startApp, statementsOf, type TestApp } from '../harness/app';
import { orderBody, unique } from '../harness/factories';

const { OrdersService } = fromDist<typeof import('../../src/orders/application/orders.service')>(
  'orders/application/orders.service',
);
type Orders = InstanceType<typeof OrdersService>;

const ACTOR = { tokenId: null, userName: 'medium-partner', requestId: 'medium-placement' };

/**
 * The placement (OrdersService.place, OrdersRepository.place) called in process on a real PostgreSQL: after the
 * validation's reads, one statement writes the order, its audit row, its `order.placed` event and a delivery per
 * endpoint that takes the event, with no transaction around it, so it writes all of them or nothing.
 */
describe('the placement statement', () => {
  let app: TestApp;
  let orders: Orders;
  let companyId: number;
  let otherCompanyId: number;
  let productId: number;

  const one = async <T>(sql: string, values: unknown[] = []): Promise<T> =>
    (await app.db.query(sql, values)).rows[0] as T;
  const company = async (site: string) =>
    (
      await one<{ id: number }>('INSERT INTO companies (name, site) VALUES ($1, $2) RETURNING id', [
        unique('Medium'),
        site,
      ])
    ).id;
  const product = async (active = true) =>
    (
      await one<{ id: number }>('INSERT INTO products (name, active) VALUES ($1, $2) RETURNING id', [
        unique('Terminal'),
        active,
      ])
    ).id;
  const endpoint = async (
    owner: number,
    columns: { active?: boolean; eventTypes?: string[]; disabled?: boolean } = {},
  ) =>
    (
      await one<{ id: number }>(
        `INSERT INTO webhook_endpoints (company_id, url, secret, active, event_types, disabled_at)
         VALUES ($1, 'https://hooks.example.com/in', 'whsec_medium', $2, $3, CASE WHEN $4 THEN now() END) RETURNING id`,
        [owner, columns.active ?? true, columns.eventTypes ?? null, columns.disabled ?? false],
      )
    ).id;
  const counts = () =>
    one<{ orders: number; audit: number; events: number; deliveries: number }>(
      `SELECT (SELECT count(*)::int FROM orders WHERE company_id = $1) AS orders,
              (SELECT count(*)::int FROM audit_events WHERE company_id = $1 AND action = 'order.placed') AS audit,
              (SELECT count(*)::int FROM events WHERE company_id = $1) AS events,
              (SELECT count(*)::int FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id
                WHERE e.company_id = $1) AS deliveries`,
      [companyId],
    );
  const refusal = async (body: Record<string, unknown>) => {
    const before = await counts();
    const error = await orders.place(ACTOR, companyId, body).then(
      () => undefined,
      (thrown: { code?: string; fieldErrors?: unknown }) => ({
        code: thrown.code,
        fieldErrors: thrown.fieldErrors,
      }),
    );
    expect(await counts()).toEqual(before);
    return error;
  };

  beforeAll(async () => {
    app = await startApp({ env: { WEBHOOK_DISPATCHER: 'false' } });
    orders = app.get(OrdersService);
    companyId = await company('SK');
    otherCompanyId = await company('SK');
    productId = await product();
  });

  afterAll(async () => {
    await app?.stop();
  });

  it('writes the order, its audit row, its event and a delivery per endpoint that takes it, in one statement and no transaction', async () => {
    const all = await endpoint(companyId);
    await endpoint(companyId, { eventTypes: ['order.cancelled'] });
    const disabled = await endpoint(companyId, { disabled: true });
    await endpoint(companyId, { active: false });
    await endpoint(otherCompanyId);

    const { result: order, sql } = await statementsOf(() =>
      orders.place(ACTOR, companyId, orderBody(productId)),
    );

    expect(sql.filter((text) => /^\s*(BEGIN|START|COMMIT|ROLLBACK)/i.test(text))).toEqual([]);
    const writes = sql.filter((text) => /INSERT INTO orders/.test(text));
    expect(writes).toHaveLength(1);
    for (const table of ['audit_events', 'events', 'webhook_deliveries'])
      expect(writes[0]).toContain(`INSERT INTO ${table}`);
    expect(await one('SELECT company_id, state, site FROM orders WHERE id = $1', [order.id])).toEqual({
      company_id: companyId,
      state: 'PLACED',
      site: 'SK',
    });
    expect(
      await one('SELECT user_name, request_id, target_type FROM audit_events WHERE target_id = $1', [
        String(order.id),
      ]),
    ).toEqual({ user_name: 'medium-partner', request_id: 'medium-placement', target_type: 'order' });
    const event = await one<{ id: string; type: string; company_id: number }>(
      'SELECT id, type, company_id FROM events WHERE order_id = $1',
      [order.id],
    );
    expect(event).toMatchObject({ type: 'order.placed', company_id: companyId });
    const { rows: deliveries } = await app.db.query(
      'SELECT endpoint_id, status, event_type FROM webhook_deliveries WHERE event_id = $1 ORDER BY endpoint_id',
      [event.id],
    );
    expect(deliveries).toEqual([
      { endpoint_id: all, status: 'pending', event_type: 'order.placed' },
      { endpoint_id: disabled, status: 'paused', event_type: 'order.placed' },
    ]);
    expect(
      await one('SELECT count(*)::int AS n FROM company_write_positions WHERE company_id = $1', [companyId]),
    ).toEqual({ n: 1 });
  });

  it('places a test order as TEST', async () => {
    const order = await orders.place(ACTOR, companyId, orderBody(productId, { test: true }));
    expect(await one('SELECT state, test FROM orders WHERE id = $1', [order.id])).toEqual({
      state: 'TEST',
      test: true,
    });
  });

  it('writes nothing at all when any part of the statement fails', async () => {
    const refusing = await endpoint(companyId);
    await app.db.query(
      `ALTER TABLE webhook_deliveries ADD CONSTRAINT medium_refuses CHECK (endpoint_id <> ${refusing}) NOT VALID`,
    );
    try {
      const before = await counts();
      await expect(orders.place(ACTOR, companyId, orderBody(productId))).rejects.toThrow(/medium_refuses/);
      expect(await counts()).toEqual(before);
    } finally {
      await app.db.query('ALTER TABLE webhook_deliveries DROP CONSTRAINT medium_refuses');
      await app.db.query('UPDATE webhook_endpoints SET active = false WHERE id = $1', [refusing]);
    }
  });

  it('refuses an unknown or inactive product, and writes nothing', async () => {
    const invalid = {
      code: 'VALIDATION_FAILED',
      fieldErrors: { product_id: ['The selected product id is invalid.'] },
    };
    expect(await refusal(orderBody(2_000_000_000))).toEqual(invalid);
    expect(await refusal(orderBody(await product(false)))).toEqual(invalid);
  });

  it('refuses a variation of another product, and one missing where the product has variations', async () => {
    const withVariation = await product();
    await app.db.query('INSERT INTO product_variations (product_id, name) VALUES ($1, $2)', [
      withVariation,
      'Black',
    ]);
    const foreign = await one<{ id: number }>(
      'INSERT INTO product_variations (product_id, name) VALUES ($1, $2) RETURNING id',
      [await product(), 'Red'],
    );
    const refused = await refusal(orderBody(withVariation, { product_variation_id: foreign.id }));
    expect(Object.keys(refused?.fieldErrors ?? {})).toEqual(['product_variation_id']);
    const missing = await refusal(orderBody(withVariation));
    expect(Object.keys(missing?.fieldErrors ?? {})).toEqual(['product_variation_id']);
  });

  it('refuses an original order of another company as invalid, and takes one of its own', async () => {
    const foreign = await orders.place(ACTOR, otherCompanyId, orderBody(productId));
    expect(
      await refusal(orderBody(productId, { order_type: 'RETURN', original_order_id: foreign.id })),
    ).toEqual({
      code: 'VALIDATION_FAILED',
      fieldErrors: { original_order_id: ['The selected original order id is invalid.'] },
    });
    const own = await orders.place(ACTOR, companyId, orderBody(productId));
    const placed = await orders.place(
      ACTOR,
      companyId,
      orderBody(productId, { order_type: 'RETURN', original_order_id: own.id }),
    );
    expect(await one('SELECT order_type, original_order_id FROM orders WHERE id = $1', [placed.id])).toEqual({
      order_type: 'RETURN',
      original_order_id: own.id,
    });
  });
});
