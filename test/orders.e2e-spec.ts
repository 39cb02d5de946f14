import request from 'supertest';
import { issueAdminToken, startApp, type TestApp } from './harness/app';
import {
  type Body,
  Fixtures,
  orderBody,
  type Partner,
  type ProductView as Product,
  unique,
} from './harness/factories';
import { openStoredCredential } from './harness/test-database';
import { placementTextOf255 } from './harness/text-fields';
import { ORDER_VIEW } from '../src/orders/domain/order-view';

/**
 * The view's example of each placement field `body` does not send (one added since a test was written): sent
 * too, it must read back as sent, so a test of the whole order covers every field.
 */
const examplesBeyond = (body: Body): Body =>
  Object.fromEntries(
    ORDER_VIEW.flatMap((field) =>
      'input' in field && !(field.key in body) && field.schema.example !== undefined
        ? [[field.key, field.schema.example]]
        : [],
    ),
  );

/** An API datetime: minutes, no seconds, no zone, UTC. */
const DATETIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/;
const NOT_FOUND = { message: 'Order not found.' };
const SENT_CONFLICT = { message: 'Order can no longer be updated: it has been sent to logistics.' };
const CANCELLED_CONFLICT = { message: 'Order can no longer be updated: it has been cancelled.' };
const ORDER_TYPE_INVALID = 'The selected order type is invalid: use REGULAR, EXCHANGE, RETURN.';
const PRODUCT_INVALID = 'The selected product id is invalid.';
const ORIGINAL_INVALID = 'The selected original order id is invalid.';
const VARIATION_REQUIRED = 'The product variation id field is required when the product has variations.';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** The API's rendering of a stored timestamp. */
const minutes = (date: Date): string => date.toISOString().slice(0, 16);
const refOf = (site: string, id: number | string): string => `${site}-${String(id).padStart(7, '0')}`;
const badRequest = (errors: Record<string, unknown>) => ({ message: 'Bad request.', errors });
const oneMessage = [expect.any(String)];

describe('orders: placing, reading, listing and updating', () => {
  let service: TestApp;
  let admin: string;
  let fixtures: Fixtures;
  let sk: Partner;
  let skColleague: Partner;
  let hu: Partner;
  let other: Partner;
  let plain: Product;
  let withVariations: Product;
  let otherWithVariations: Product;

  const api = () => request(service.url);
  const bearer = (token: string) => `Bearer ${token}`;

  const validOrder = (overrides: Body = {}): Body => orderBody(plain.id, overrides);

  const place = (partner: Partner, body: Body) =>
    api().post('/api/v2/order').set('Authorization', bearer(partner.token)).send(body);

  async function placeOk(partner: Partner, overrides: Body = {}): Promise<number> {
    const response = await place(partner, validOrder(overrides));
    expect({ status: response.status, body: response.body }).toEqual({
      status: 201,
      body: expect.objectContaining({ message: 'Order created.' }),
    });
    return Number(response.body.orders[0].order_id);
  }

  const getOrder = (partner: Partner, id: number | string) =>
    api().get(`/api/v2/order/${id}`).set('Authorization', bearer(partner.token));

  const update = (partner: Partner, id: number | string, body: Body) =>
    api().post(`/api/v2/order/${id}/update`).set('Authorization', bearer(partner.token)).send(body);

  async function countOrders(): Promise<number> {
    const result = await service.db.query<{ n: string }>('SELECT count(*) AS n FROM orders');
    return Number(result.rows[0].n);
  }

  async function storedOrder(id: number): Promise<Record<string, unknown>> {
    const result = await service.db.query('SELECT * FROM orders WHERE id = $1', [id]);
    return result.rows[0] as Record<string, unknown>;
  }

  /** Places an order and expects 400 with exactly these errors, and nothing stored. */
  async function expectRefused(partner: Partner, body: Body, errors: Record<string, unknown>) {
    const before = await countOrders();
    const response = await place(partner, body);
    expect({ status: response.status, body: response.body }).toEqual({
      status: 400,
      body: badRequest(errors),
    });
    expect(await countOrders()).toBe(before);
  }

  beforeAll(async () => {
    service = await startApp({
      env: { RATE_LIMIT_PER_MINUTE: '100000', ADMIN_RATE_LIMIT_PER_MINUTE: '100000' },
    });
    admin = await issueAdminToken(service);
    fixtures = new Fixtures(service.url, admin);
    sk = await fixtures.partner('SK');
    skColleague = await fixtures.partnerOf(sk.companyId, 'SK');
    hu = await fixtures.partner('HU');
    other = await fixtures.partner('SK');
    plain = await fixtures.product([]);
    withVariations = await fixtures.product(['Black', 'White']);
    otherWithVariations = await fixtures.product(['Red']);
  });

  afterAll(async () => {
    await service.stop();
  });

  describe('placing an order', () => {
    it('places a regular order for the token company: 201, the id as a string, an SK order_ref, stored PLACED', async () => {
      const before = await countOrders();
      const body = validOrder({
        product_id: withVariations.id,
        product_variation_id: withVariations.variations[1].id,
      });
      const response = await place(sk, body);
      expect(response.status).toBe(201);
      const id = Number(response.body.orders?.[0]?.order_id);
      expect(response.body).toEqual({
        message: 'Order created.',
        orders: [{ order_id: String(id), order_ref: refOf('SK', id), order_type: 'REGULAR' }],
      });
      expect(await countOrders()).toBe(before + 1);
      const stored = await storedOrder(id);
      expect(openStoredCredential(stored.password as string)).toBe(body.password);
      expect(stored).toMatchObject({
        company_id: sk.companyId,
        state: 'PLACED',
        order_type: 'REGULAR',
        original_order_id: null,
        first_name: body.first_name,
        email: body.email,
        product_id: withVariations.id,
        product_variation_id: withVariations.variations[1].id,
        test: false,
      });
    });

    it('takes the company from the token, never from the body, and ignores unknown fields', async () => {
      const response = await place(
        sk,
        validOrder({ company_id: other.companyId, company: other.companyId, favourite_colour: 'blue' }),
      );
      expect(response.status).toBe(201);
      const id = Number(response.body.orders[0].order_id);
      const stored = await storedOrder(id);
      expect(stored.company_id).toBe(sk.companyId);
      expect(JSON.stringify(stored)).not.toContain('blue');
      await getOrder(other, id).expect(404, NOT_FOUND);
    });

    it('stores a test order as TEST', async () => {
      const id = await placeOk(sk, { test: true });
      expect(await storedOrder(id)).toMatchObject({ state: 'TEST', test: true });
    });

    it('accepts an integer-valued string as product_id', async () => {
      const id = await placeOk(sk, { product_id: String(plain.id) });
      expect((await storedOrder(id)).product_id).toBe(plain.id);
    });

    it('accepts a country in any case, returns it in lower case and uses it for the order_ref', async () => {
      const response = await place(sk, validOrder({ country: 'cZ' }));
      expect(response.status).toBe(201);
      const id = Number(response.body.orders[0].order_id);
      expect(response.body.orders[0].order_ref).toBe(refOf('CZ', id));
      const view = await getOrder(sk, id).expect(200);
      expect(view.body.country).toBe('cz');
      expect(view.body.order_ref).toBe(refOf('CZ', id));
    });

    it('uses the company site for the order_ref when no country is given', async () => {
      const response = await place(hu, validOrder());
      expect(response.status).toBe(201);
      expect(response.body.orders[0].order_ref).toBe(refOf('HU', response.body.orders[0].order_id as string));
    });

    it.each(['XX', 'CZE', 'c', '12'])('refuses the country %j', async (country) => {
      await expectRefused(sk, validOrder({ country }), { country: oneMessage });
    });

    it('names every missing required field at once, with its "required" message', async () => {
      await expectRefused(
        sk,
        { order_type: 'REGULAR', product_id: plain.id },
        Object.fromEntries(
          [
            'first_name',
            'last_name',
            'consignee',
            'email',
            'phone',
            'zip',
            'city',
            'street',
            'house_number',
            'login',
            'password',
            'merchant_id',
          ].map((field) => [field, [`The ${field.replace(/_/g, ' ')} field is required.`]]),
        ),
      );
    });

    it('refuses blank required strings as missing', async () => {
      await expectRefused(sk, validOrder({ first_name: '', city: '   ', merchant_id: '\t' }), {
        first_name: ['The first name field is required.'],
        city: ['The city field is required.'],
        merchant_id: ['The merchant id field is required.'],
      });
    });

    it('refuses a missing product id', async () => {
      const body = validOrder();
      delete body.product_id;
      await expectRefused(sk, body, { product_id: ['The product id field is required.'] });
    });

    it.each(placementTextOf255())('refuses %s over 255 characters and accepts exactly 255', async (field) => {
      const label = field === 'corrected_order_ID' ? 'corrected order ID' : field.replace(/_/g, ' ');
      await expectRefused(sk, validOrder({ [field]: 'x'.repeat(256) }), {
        [field]: [`The ${label} may not be greater than 255 characters.`],
      });
      const id = await placeOk(sk, { [field]: 'y'.repeat(255) });
      const view = await getOrder(sk, id).expect(200);
      expect(view.body[field]).toBe('y'.repeat(255));
    });

    it('refuses an invalid email address', async () => {
      await expectRefused(sk, validOrder({ email: 'not-an-email' }), {
        email: ['The email must be a valid email address.'],
      });
    });

    it('refuses a number where a string is expected', async () => {
      await expectRefused(sk, validOrder({ first_name: 5 }), {
        first_name: ['The first name must be a string.'],
      });
    });

    it('names every failing field in one answer, one message each', async () => {
      await expectRefused(
        sk,
        validOrder({ first_name: 5, email: 'nope', city: '', order_type: 'regular', product_id: 987654 }),
        {
          first_name: ['The first name must be a string.'],
          email: ['The email must be a valid email address.'],
          city: ['The city field is required.'],
          order_type: [ORDER_TYPE_INVALID],
          product_id: [PRODUCT_INVALID],
        },
      );
    });

    it.each(['regular', '', 'CANCEL', ' REGULAR'])('refuses the order_type %j', async (orderType) => {
      await expectRefused(sk, validOrder({ order_type: orderType }), { order_type: [ORDER_TYPE_INVALID] });
    });

    it.each(['EXCHANGE', 'RETURN'])('accepts the order_type %s after a regular order', async (orderType) => {
      const original = await placeOk(sk);
      const response = await place(sk, validOrder({ order_type: orderType, original_order_id: original }));
      expect(response.status).toBe(201);
      expect(response.body.orders[0].order_type).toBe(orderType);
    });

    it.each([
      [true, true],
      [false, false],
      [1, true],
      [0, false],
      ['true', true],
      ['false', false],
      ['1', true],
      ['0', false],
    ])('accepts %j as a boolean and stores %s', async (input, stored) => {
      const id = await placeOk(sk, { test: input, retail: input, dinein: input });
      expect(await storedOrder(id)).toMatchObject({
        test: stored,
        retail: stored,
        dinein: stored,
        state: stored ? 'TEST' : 'PLACED',
      });
    });

    it.each(['yes', 2, 'TRUE ', 'on', -1])('refuses %j as a boolean', async (input) => {
      await expectRefused(sk, validOrder({ test: input, retail: input, dinein: input }), {
        test: oneMessage,
        retail: oneMessage,
        dinein: oneMessage,
      });
    });

    it.each([['abc'], [1.5], ['2.0x']])('refuses the product_id %j', async (productId) => {
      await expectRefused(sk, validOrder({ product_id: productId }), { product_id: oneMessage });
    });

    it.each([
      ['product_id', 99999999999, PRODUCT_INVALID],
      ['product_id', '99999999999', PRODUCT_INVALID],
    ])(
      'refuses a %s beyond any stored id (%j) as invalid, not with an error',
      async (field, value, message) => {
        await expectRefused(sk, validOrder({ [field]: value }), { [field]: [message] });
      },
    );

    it.each([['99999999999'], [99999999999], ['12a'], [-5], [1.5]])(
      'refuses the original_order_id %j on a RETURN with 400 on original_order_id',
      async (value) => {
        await expectRefused(sk, validOrder({ order_type: 'RETURN', original_order_id: value }), {
          original_order_id: oneMessage,
        });
      },
    );

    it('refuses a product_variation_id beyond any stored id with 400, not an error', async () => {
      await expectRefused(
        sk,
        validOrder({ product_id: withVariations.id, product_variation_id: 99999999999 }),
        {
          product_variation_id: oneMessage,
        },
      );
    });

    it('refuses an oms_user_id too large to store with 400, not an error', async () => {
      await expectRefused(sk, validOrder({ oms_user_id: 99999999999 }), { oms_user_id: oneMessage });
    });

    it('refuses a product_variation_id that is not an integer', async () => {
      await expectRefused(sk, validOrder({ product_id: withVariations.id, product_variation_id: 'abc' }), {
        product_variation_id: oneMessage,
      });
    });

    it('refuses a non-integer oms_user_id and stores an integer one', async () => {
      await expectRefused(sk, validOrder({ oms_user_id: 'abc' }), { oms_user_id: oneMessage });
      const id = await placeOk(sk, { oms_user_id: 77 });
      expect((await storedOrder(id)).oms_user_id).toBe(77);
    });
  });

  describe('the site rule for note and details', () => {
    it('refuses a 51-character note on an SK order and accepts 50', async () => {
      await expectRefused(sk, validOrder({ note: 'n'.repeat(51) }), {
        note: ['The note may not be greater than 50 characters on SK orders.'],
      });
      const id = await placeOk(sk, { note: 'n'.repeat(50) });
      expect((await storedOrder(id)).note).toBe('n'.repeat(50));
    });

    it('accepts 51 to 255 characters of note when an SK company places a Hungarian order', async () => {
      await placeOk(sk, { country: 'hu', note: 'n'.repeat(51) });
      const id = await placeOk(sk, { country: 'hu', note: 'n'.repeat(255) });
      expect((await storedOrder(id)).note).toBe('n'.repeat(255));
      await expectRefused(sk, validOrder({ country: 'hu', note: 'n'.repeat(256) }), {
        note: ['The note may not be greater than 255 characters.'],
      });
    });

    it('refuses a 51-character note when a HU company places a Czech order', async () => {
      await expectRefused(hu, validOrder({ country: 'CZ', note: 'n'.repeat(51) }), {
        note: ['The note may not be greater than 50 characters on CZ orders.'],
      });
    });

    it('refuses a 51-character note on a PL order', async () => {
      await expectRefused(hu, validOrder({ country: 'pl', note: 'n'.repeat(51) }), {
        note: ['The note may not be greater than 50 characters on PL orders.'],
      });
    });

    it('refuses 51 characters of details on an SK order and accepts 50', async () => {
      await expectRefused(sk, validOrder({ details: 'd'.repeat(51) }), {
        details: ['The details may not be greater than 50 characters on SK orders.'],
      });
      await placeOk(sk, { details: 'd'.repeat(50) });
    });

    it('accepts 60,000 characters of details on a HU order and refuses 65,536', async () => {
      const id = await placeOk(hu, { details: 'd'.repeat(60_000) });
      expect(((await storedOrder(id)).details as string).length).toBe(60_000);
      await expectRefused(hu, validOrder({ details: 'd'.repeat(65_536) }), { details: oneMessage });
    });
  });

  describe('products and variations', () => {
    it('requires a variation when the product has variations', async () => {
      await expectRefused(sk, validOrder({ product_id: withVariations.id }), {
        product_variation_id: [VARIATION_REQUIRED],
      });
      await expectRefused(sk, validOrder({ product_id: withVariations.id, product_variation_id: null }), {
        product_variation_id: [VARIATION_REQUIRED],
      });
    });

    it('refuses a variation of another product', async () => {
      await expectRefused(
        sk,
        validOrder({
          product_id: withVariations.id,
          product_variation_id: otherWithVariations.variations[0].id,
        }),
        { product_variation_id: oneMessage },
      );
    });

    it('refuses a variation on a product without variations, and accepts null there', async () => {
      await expectRefused(
        sk,
        validOrder({ product_id: plain.id, product_variation_id: withVariations.variations[0].id }),
        { product_variation_id: oneMessage },
      );
      const id = await placeOk(sk, { product_id: plain.id, product_variation_id: null });
      expect((await storedOrder(id)).product_variation_id).toBeNull();
    });

    it('refuses an unknown product', async () => {
      await expectRefused(sk, validOrder({ product_id: 987654 }), { product_id: [PRODUCT_INVALID] });
    });

    it('refuses a deactivated product', async () => {
      const product = await fixtures.product([]);
      await placeOk(sk, { product_id: product.id });
      await api()
        .patch(`/api/v2/admin/products/${product.id}`)
        .set('Authorization', bearer(admin))
        .send({ active: false })
        .expect(200);
      await expectRefused(sk, validOrder({ product_id: product.id }), { product_id: [PRODUCT_INVALID] });
    });
  });

  describe('original orders', () => {
    it('refuses an original order on a REGULAR order', async () => {
      const original = await placeOk(sk);
      await expectRefused(sk, validOrder({ original_order_id: original }), { original_order_id: oneMessage });
    });

    it.each([[null], [''], [undefined]])(
      'accepts %j as "no original order" on a REGULAR order',
      async (value) => {
        const id = await placeOk(sk, { original_order_id: value });
        expect((await storedOrder(id)).original_order_id).toBeNull();
        expect((await getOrder(sk, id).expect(200)).body.original_order_id).toBeNull();
      },
    );

    it.each(['EXCHANGE', 'RETURN'])('requires an original order on %s', async (orderType) => {
      await expectRefused(sk, validOrder({ order_type: orderType }), { original_order_id: oneMessage });
      await expectRefused(sk, validOrder({ order_type: orderType, original_order_id: '' }), {
        original_order_id: oneMessage,
      });
    });

    it('accepts the original order as an integer or as a string of digits and returns it as a string', async () => {
      const original = await placeOk(sk);
      const asInteger = await placeOk(sk, { order_type: 'EXCHANGE', original_order_id: original });
      const asString = await placeOk(sk, { order_type: 'RETURN', original_order_id: String(original) });
      for (const id of [asInteger, asString]) {
        expect((await storedOrder(id)).original_order_id).toBe(original);
        const view = await getOrder(sk, id).expect(200);
        expect(view.body.original_order_id).toBe(String(original));
      }
    });

    it("refuses another company's order as original exactly like a nonexistent one", async () => {
      const foreign = await placeOk(other);
      await expectRefused(sk, validOrder({ order_type: 'RETURN', original_order_id: foreign }), {
        original_order_id: [ORIGINAL_INVALID],
      });
      await expectRefused(sk, validOrder({ order_type: 'RETURN', original_order_id: 98765432 }), {
        original_order_id: [ORIGINAL_INVALID],
      });
    });

    it('lets an EXCHANGE follow a REGULAR or an EXCHANGE, but not a RETURN', async () => {
      const regular = await placeOk(sk);
      const exchange = await placeOk(sk, { order_type: 'EXCHANGE', original_order_id: regular });
      await placeOk(sk, { order_type: 'EXCHANGE', original_order_id: exchange });
      const ret = await placeOk(sk, { order_type: 'RETURN', original_order_id: regular });
      await expectRefused(sk, validOrder({ order_type: 'EXCHANGE', original_order_id: ret }), {
        original_order_id: oneMessage,
      });
    });

    it('lets a RETURN follow a REGULAR or an EXCHANGE, but not a RETURN', async () => {
      const regular = await placeOk(sk);
      const exchange = await placeOk(sk, { order_type: 'EXCHANGE', original_order_id: regular });
      await placeOk(sk, { order_type: 'RETURN', original_order_id: exchange });
      const ret = await placeOk(sk, { order_type: 'RETURN', original_order_id: regular });
      await expectRefused(sk, validOrder({ order_type: 'RETURN', original_order_id: ret }), {
        original_order_id: oneMessage,
      });
    });
  });

  describe('audit and secrets on placement', () => {
    it('records one order.placed event with the token, names only, and never the password', async () => {
      const before = await service.db.query<{ n: string }>('SELECT count(*) AS n FROM audit_events');
      const body = validOrder({ note: 'audit-note-value' });
      const id = await placeOk(sk, body);
      const events = await service.db.query('SELECT * FROM audit_events ORDER BY id DESC LIMIT 1');
      const after = await service.db.query<{ n: string }>('SELECT count(*) AS n FROM audit_events');
      expect(Number(after.rows[0].n)).toBe(Number(before.rows[0].n) + 1);
      const event = events.rows[0] as Record<string, unknown>;
      expect(event).toMatchObject({
        action: 'order.placed',
        token_id: sk.tokenId,
        user_name: sk.userName,
        company_id: sk.companyId,
        target_id: String(id),
      });
      expect(event.changed_fields).toEqual(expect.arrayContaining(['first_name', 'note']));
      for (const name of event.changed_fields as string[]) expect(Object.keys(body)).toContain(name);
      const all = JSON.stringify((await service.db.query('SELECT * FROM audit_events')).rows);
      expect(all).not.toContain(body.password as string);
      expect(all).not.toContain('audit-note-value');
    });

    it('never writes the device password to the logs, whether placing succeeds or fails, nor when it is read', async () => {
      const body = validOrder();
      const id = await placeOk(sk, { password: body.password });
      await place(sk, validOrder({ password: body.password, email: 'bad' })).expect(400);
      const tooLong = `${body.password as string}`.padEnd(256, 'Q');
      await place(sk, validOrder({ password: tooLong })).expect(400);
      await getOrder(sk, id).expect(200);
      await api().get('/api/v2/order?per_page=1').set('Authorization', bearer(sk.token)).expect(200);
      await update(sk, id, { password: tooLong }).expect(400);
      await sleep(200);
      expect(service.output().length).toBeGreaterThan(0);
      expect(service.output()).not.toContain(body.password as string);
      expect(service.output()).not.toContain(tooLong);
    });
  });

  describe('reading one order', () => {
    it('shows the whole order with trackings, the latest detailed status, delivery errors and comments', async () => {
      const named = validOrder({
        floor: '3',
        door: '12',
        opening_hours: 'Mo-Fr 9-17',
        country: 'SK',
        product_id: withVariations.id,
        product_variation_id: withVariations.variations[0].id,
        note: 'ring twice',
        details: 'left of the bar',
        corrected_order_ID: 'C-1',
        oms_user_id: 42,
        retail: true,
        dinein: false,
        shop_number: 'S-9',
        test: false,
      });
      const body = { ...examplesBeyond(named), ...named };
      const id = await placeOk(sk, body);
      await service.db.query(
        `INSERT INTO trackings (order_id, company_id, tracking_number, status, status_date, dispatch_date, delivery_date, tracking_link)
         VALUES ($1, $2, 'TRK-1', 'IN_TRANSIT', '2024-03-02T08:30:45Z', '2024-03-01T10:15:00Z', NULL, 'https://track.example/TRK-1')`,
        [id, sk.companyId],
      );
      await service.db.query(
        `INSERT INTO detailed_statuses (order_id, status, status_date, location, description, tracking_number, tracking_link)
         VALUES ($1, 'OUT_FOR_DELIVERY', '2024-03-03T07:00:00Z', 'Bratislava', 'On the van', 'TRK-1', 'https://track.example/TRK-1'),
                ($1, 'ACCEPTED', '2024-03-01T10:16:00Z', 'Depot', 'Accepted', 'TRK-1', NULL)`,
        [id],
      );
      await service.db.query(
        `INSERT INTO delivery_errors (order_id, status, date, resolution, comment)
         VALUES ($1, 'NOBODY_HOME', '2024-03-03T09:05:00Z', 'RETRY', 'Closed')`,
        [id],
      );
      await api()
        .post(`/api/v2/order/${id}/comment`)
        .set('Authorization', bearer(sk.token))
        .send({ partner_comment: 'Please call first' })
        .expect(200);
      const stored = await storedOrder(id);
      const comment = (await service.db.query('SELECT * FROM order_comments WHERE order_id = $1', [id]))
        .rows[0];

      const response = await getOrder(sk, id);
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        ...examplesBeyond(named),
        order_id: id,
        order_ref: refOf('SK', id),
        created_at: minutes(stored.created_at as Date),
        first_name: body.first_name,
        last_name: body.last_name,
        consignee: body.consignee,
        email: body.email,
        phone: body.phone,
        zip: body.zip,
        city: body.city,
        street: body.street,
        house_number: body.house_number,
        floor: '3',
        door: '12',
        opening_hours: 'Mo-Fr 9-17',
        product_id: withVariations.id,
        product_variation_id: withVariations.variations[0].id,
        login: body.login,
        password: body.password,
        final_completion_date: null,
        order_type: 'REGULAR',
        original_order_id: null,
        trackings: [
          {
            status_date: '2024-03-02T08:30',
            status: 'IN_TRANSIT',
            dispatch_date: '2024-03-01T10:15',
            delivery_date: null,
            tracking_number: 'TRK-1',
            tracking_link: 'https://track.example/TRK-1',
          },
        ],
        detailed_status: {
          status_date: '2024-03-03T07:00',
          status: 'OUT_FOR_DELIVERY',
          location: 'Bratislava',
          description: 'On the van',
          tracking_number: 'TRK-1',
          tracking_link: 'https://track.example/TRK-1',
        },
        serial_number: null,
        delivery_errors: [
          { status: 'NOBODY_HOME', date: '2024-03-03T09:05', resolution: 'RETRY', comment: 'Closed' },
        ],
        comments: [
          {
            id: comment.id,
            partner_comment: 'Please call first',
            user_name: sk.userName,
            created_at: minutes(comment.created_at as Date),
            updated_at: minutes(comment.updated_at as Date),
          },
        ],
        merchant_id: body.merchant_id,
        state: 'PLACED',
        editable: true,
        test: false,
        country: 'sk',
        note: 'ring twice',
        details: 'left of the bar',
        corrected_order_ID: 'C-1',
        oms_user_id: 42,
        retail: true,
        dinein: false,
        shop_number: 'S-9',
        updated_at: minutes((await storedOrder(id)).updated_at as Date),
        version: (await storedOrder(id)).version,
      });
    });

    it('renders datetimes in UTC, truncated to the minute', async () => {
      const id = await placeOk(sk);
      await service.db.query(
        `UPDATE orders SET created_at = '2024-05-01T00:59:59+02:00', updated_at = '2024-05-02T23:59:59.999Z' WHERE id = $1`,
        [id],
      );
      await service.db.query(
        `INSERT INTO detailed_statuses (order_id, status, status_date) VALUES ($1, 'ACCEPTED', '2024-05-03T10:30:59.9+01:00')`,
        [id],
      );
      const response = await getOrder(sk, id).expect(200);
      expect({
        created_at: response.body.created_at,
        updated_at: response.body.updated_at,
        status_date: response.body.detailed_status?.status_date,
      }).toEqual({
        created_at: '2024-04-30T22:59',
        updated_at: '2024-05-02T23:59',
        status_date: '2024-05-03T09:30',
      });
    });

    it('shows a fresh order with no detailed status and empty lists', async () => {
      const id = await placeOk(sk);
      const response = await getOrder(sk, id).expect(200);
      expect(response.body).toMatchObject({
        trackings: [],
        detailed_status: null,
        delivery_errors: [],
        comments: [],
        serial_number: null,
        final_completion_date: null,
        created_at: expect.stringMatching(DATETIME),
        updated_at: expect.stringMatching(DATETIME),
      });
    });

    it.each([
      ['PLACED', true],
      ['TEST', true],
      ['SENT_TO_LOGISTICS', false],
      ['DELIVERED', false],
      ['CANCELLED', false],
    ])('shows an order in state %s as editable=%s', async (state, editable) => {
      const id = await placeOk(sk);
      await service.db.query('UPDATE orders SET state = $2 WHERE id = $1', [id, state]);
      const response = await getOrder(sk, id).expect(200);
      expect({ state: response.body.state, editable: response.body.editable }).toEqual({ state, editable });
    });

    it('shows an order to a colleague of the same company', async () => {
      const id = await placeOk(sk);
      await getOrder(skColleague, id).expect(200);
    });

    it("answers an unknown, a non-numeric, a huge and another company's order id with the same 404", async () => {
      const foreign = await placeOk(other);
      for (const id of ['98765432', 'abc', '99999999999', String(foreign), '1.5', '-1']) {
        const response = await getOrder(sk, id);
        expect({ id, status: response.status, body: response.body }).toEqual({
          id,
          status: 404,
          body: NOT_FOUND,
        });
      }
    });
  });

  describe('listing orders', () => {
    let lister: Partner;
    let stranger: Partner;
    const ids: number[] = [];

    const list = (partner: Partner, query = '', path = '/api/v2/order') =>
      api()
        .get(`${path}${query ? `?${query}` : ''}`)
        .set('Authorization', bearer(partner.token));
    const listIds = async (query: string): Promise<number[]> => {
      const response = await list(lister, query);
      expect({ query, status: response.status }).toEqual({ query, status: 200 });
      return (response.body.data as { order_id: number }[]).map((order) => order.order_id);
    };
    const parseLink = (link: string | null) => {
      if (link === null) return null;
      const url = new URL(link);
      return { base: `${url.origin}${url.pathname}`, query: Object.fromEntries(url.searchParams) };
    };

    beforeAll(async () => {
      lister = await fixtures.partner('CZ');
      stranger = await fixtures.partner('CZ');
      // ids[0] oldest ... ids[4] newest; ids[3] and ids[4] share created_at (then id desc).
      const created = [
        '2024-01-10T08:00:00Z',
        '2024-01-15T12:30:00Z',
        '2024-01-20T00:00:00Z',
        '2024-01-25T18:45:30Z',
        '2024-01-25T18:45:30Z',
      ];
      for (let index = 0; index < created.length; index += 1) {
        const id = await placeOk(lister, index === 1 ? { test: true } : {});
        await service.db.query('UPDATE orders SET created_at = $2, updated_at = $3 WHERE id = $1', [
          id,
          created[index],
          `2024-02-0${index + 1}T10:00:00Z`,
        ]);
        ids.push(id);
      }
      await service.db.query('UPDATE orders SET order_type = $2 WHERE id = $1', [ids[2], 'EXCHANGE']);
      await service.db.query(`UPDATE orders SET state = 'SENT_TO_LOGISTICS' WHERE id = $1`, [ids[3]]);
      await service.db.query(
        `INSERT INTO trackings (order_id, company_id, tracking_number, status, status_date, delivery_date)
         VALUES ($1, $3, 'LST-A', 'DELIVERED', '2024-03-05T10:00:00Z', '2024-03-05T10:00:00Z'),
                ($2, $3, 'LST-B', 'IN_TRANSIT', '2024-03-06T10:00:00Z', NULL)`,
        [ids[0], ids[1], lister.companyId],
      );
      // A stranger's order with a matching tracking number and the same dates must never leak.
      const foreign = await placeOk(stranger);
      await service.db.query('UPDATE orders SET created_at = $2 WHERE id = $1', [foreign, created[2]]);
      await service.db.query(
        `INSERT INTO trackings (order_id, company_id, tracking_number, status, delivery_date)
         VALUES ($1, $2, 'LST-A', 'DELIVERED', '2024-03-05T10:00:00Z')`,
        [foreign, stranger.companyId],
      );
    });

    it('lists only the company orders, newest first, with the same answer on /order and /orders', async () => {
      const response = await list(lister);
      expect(response.status).toBe(200);
      const newestFirst = [ids[4], ids[3], ids[2], ids[1], ids[0]];
      expect((response.body.data as { order_id: number }[]).map((order) => order.order_id)).toEqual(
        newestFirst,
      );
      const path = `${service.url}/api/v2/order`;
      expect(response.body.meta).toEqual({ current_page: 1, from: 1, path, per_page: 25, to: 5 });
      expect(response.body.links.last).toBeNull();
      expect(response.body.links.prev).toBeNull();
      expect(response.body.links.next).toBeNull();
      expect(parseLink(response.body.links.first)).toEqual({
        base: path,
        query: expect.objectContaining({ page: '1' }),
      });
      const plural = await list(lister, '', '/api/v2/orders');
      expect(plural.status).toBe(200);
      expect(plural.body.data).toEqual(response.body.data);
      expect(plural.body.meta.path).toBe(`${service.url}/api/v2/orders`);
    });

    it('shows each order like the single view, with partner_comments instead of comments', async () => {
      await api()
        .post(`/api/v2/order/${ids[0]}/comment`)
        .set('Authorization', bearer(lister.token))
        .send({ partner_comment: 'listed comment' })
        .expect(200);
      const single = await getOrder(lister, ids[0]).expect(200);
      const listed = (await list(lister, `order_id=${ids[0]}`).expect(200)).body.data;
      const { comments, ...rest } = single.body;
      expect(listed).toEqual([{ ...rest, partner_comments: comments }]);
      expect(listed[0].partner_comments).toEqual([
        expect.objectContaining({ partner_comment: 'listed comment', user_name: lister.userName }),
      ]);
      expect(listed[0]).not.toHaveProperty('comments');
    });

    it('pages with absolute links that keep every filter', async () => {
      const response = await list(lister, 'order_type=REGULAR&per_page=2&page=2');
      expect(response.status).toBe(200);
      expect((response.body.data as { order_id: number }[]).map((order) => order.order_id)).toEqual([
        ids[1],
        ids[0],
      ]);
      const path = `${service.url}/api/v2/order`;
      expect(response.body.meta).toEqual({ current_page: 2, from: 3, path, per_page: 2, to: 4 });
      expect({
        first: parseLink(response.body.links.first),
        last: response.body.links.last,
        prev: parseLink(response.body.links.prev),
        next: response.body.links.next,
      }).toEqual({
        first: { base: path, query: { order_type: 'REGULAR', per_page: '2', page: '1' } },
        last: null,
        prev: { base: path, query: { order_type: 'REGULAR', per_page: '2', page: '1' } },
        next: null,
      });
      const first = await list(lister, 'order_type=REGULAR&per_page=2');
      expect(first.body.links.prev).toBeNull();
      expect(parseLink(first.body.links.next)).toEqual({
        base: path,
        query: { order_type: 'REGULAR', per_page: '2', page: '2' },
      });
    });

    it('has no next link when the last page is exactly full', async () => {
      const response = await list(lister, 'per_page=5');
      expect(response.body.data).toHaveLength(5);
      expect(response.body.links.next).toBeNull();
    });

    it('shows an empty page past the end with from and to null', async () => {
      const response = await list(lister, 'per_page=2&page=4');
      expect(response.status).toBe(200);
      expect(response.body.data).toEqual([]);
      expect(response.body.meta).toEqual({
        current_page: 4,
        from: null,
        path: `${service.url}/api/v2/order`,
        per_page: 2,
        to: null,
      });
      expect(response.body.links.next).toBeNull();
    });

    it.each([
      ['order_id of one order', () => `order_id=${ids[2]}`, () => [ids[2]]],
      [
        'created_from a date (midnight, inclusive)',
        () => 'created_from=2024-01-20',
        () => [ids[4], ids[3], ids[2]],
      ],
      ['created_to a date (midnight)', () => 'created_to=2024-01-20', () => [ids[2], ids[1], ids[0]]],
      [
        'created_from/created_to datetimes, inclusive',
        () => 'created_from=2024-01-15T12:30&created_to=2024-01-25T18:45:30',
        () => [ids[4], ids[3], ids[2], ids[1]],
      ],
      ['tracking_number', () => 'tracking_number=LST-B', () => [ids[1]]],
      ['delivered=true', () => 'delivered=true', () => [ids[0]]],
      ['delivered=false', () => 'delivered=false', () => [ids[4], ids[3], ids[2], ids[1]]],
      [
        'delivered_from/delivered_to',
        () => 'delivered_from=2024-03-05&delivered_to=2024-03-05T10:00',
        () => [ids[0]],
      ],
      ['delivered_from after every delivery', () => 'delivered_from=2024-03-06', () => []],
      ['order_type', () => 'order_type=EXCHANGE', () => [ids[2]]],
      ['state', () => 'state=SENT_TO_LOGISTICS', () => [ids[3]]],
      ['state=TEST', () => 'state=TEST', () => [ids[1]]],
      [
        'updated_from/updated_to',
        () => 'updated_from=2024-02-02&updated_to=2024-02-03T10:00',
        () => [ids[2], ids[1]],
      ],
      [
        'several filters together (AND)',
        () => 'order_type=REGULAR&created_from=2024-01-15&delivered=false',
        () => [ids[4], ids[3], ids[1]],
      ],
    ])('filters by %s', async (_case, query, expected) => {
      expect(await listIds(query())).toEqual(expected());
    });

    it('answers a digits-only order_id beyond any stored id with an empty page', async () => {
      const response = await list(lister, 'order_id=99999999999');
      expect({ status: response.status, body: response.body }).toEqual({
        status: 200,
        body: expect.objectContaining({ data: [] }),
      });
    });

    it('names every invalid parameter at once', async () => {
      const response = await list(
        lister,
        'created_from=2024-02-30&created_to=yesterday&delivered=maybe&order_type=&state=NOPE&order_id=12a',
      );
      expect({ status: response.status, body: response.body }).toEqual({
        status: 400,
        body: badRequest({
          created_from: oneMessage,
          created_to: oneMessage,
          delivered: oneMessage,
          order_type: oneMessage,
          state: oneMessage,
          order_id: oneMessage,
        }),
      });
    });

    it.each([
      'page=0',
      'page=abc',
      'per_page=0',
      'per_page=26',
      'delivered_from=2024-13-01',
      'updated_to=soon',
    ])('refuses ?%s with 400 naming it', async (query) => {
      const response = await list(lister, query);
      expect({ status: response.status, body: response.body }).toEqual({
        status: 400,
        body: badRequest({ [query.split('=')[0]]: oneMessage }),
      });
    });

    it("never shows another company's orders, whatever the filter", async () => {
      const strangerIds = ((await list(stranger).expect(200)).body.data as { order_id: number }[]).map(
        (order) => order.order_id,
      );
      expect(strangerIds).toHaveLength(1);
      for (const query of [
        `order_id=${strangerIds[0]}`,
        'tracking_number=LST-A',
        'delivered=true',
        'created_from=2024-01-20&created_to=2024-01-20',
        'state=PLACED',
      ]) {
        const seen = await listIds(query);
        expect({ query, leaked: seen.filter((id) => strangerIds.includes(id)) }).toEqual({
          query,
          leaked: [],
        });
      }
      expect(await listIds(`order_id=${strangerIds[0]}`)).toEqual([]);
      expect(await listIds('tracking_number=LST-A')).toEqual([ids[0]]);
    });
  });

  describe('updating an order', () => {
    it('updates the city: 200 with the id as an integer, stored, updated_at moves, one audit event', async () => {
      const id = await placeOk(sk);
      const before = await storedOrder(id);
      const audits = await service.db.query<{ n: string }>('SELECT count(*) AS n FROM audit_events');
      await sleep(20);
      const response = await update(sk, id, { city: 'Kosice' });
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        message: 'Order updated.',
        orders: [{ order_id: id, order_ref: refOf('SK', id), order_type: 'REGULAR' }],
      });
      const after = await storedOrder(id);
      expect(after.city).toBe('Kosice');
      expect(after.first_name).toBe(before.first_name);
      expect((after.updated_at as Date).getTime()).toBeGreaterThan((before.updated_at as Date).getTime());
      const event = await service.db.query('SELECT * FROM audit_events ORDER BY id DESC LIMIT 1');
      const count = await service.db.query<{ n: string }>('SELECT count(*) AS n FROM audit_events');
      expect(Number(count.rows[0].n)).toBe(Number(audits.rows[0].n) + 1);
      expect(event.rows[0]).toMatchObject({
        action: 'order.updated',
        token_id: sk.tokenId,
        user_name: sk.userName,
        company_id: sk.companyId,
        target_id: String(id),
        changed_fields: ['city'],
      });
      expect((await getOrder(sk, id).expect(200)).body.city).toBe('Kosice');
    });

    it('keeps a new device password out of the audit trail and the logs', async () => {
      const id = await placeOk(sk);
      const password = `pw-NEW-${unique('secret')}`;
      await update(sk, id, { password }).expect(200);
      expect(openStoredCredential((await storedOrder(id)).password as string)).toBe(password);
      const event = await service.db.query('SELECT * FROM audit_events ORDER BY id DESC LIMIT 1');
      expect(event.rows[0]).toMatchObject({ action: 'order.updated', changed_fields: ['password'] });
      expect(JSON.stringify((await service.db.query('SELECT * FROM audit_events')).rows)).not.toContain(
        password,
      );
      await sleep(200);
      expect(service.output()).not.toContain(password);
    });

    it('re-validates the merged order: a new product with variations needs one of its own variations', async () => {
      const id = await placeOk(sk, {
        product_id: otherWithVariations.id,
        product_variation_id: otherWithVariations.variations[0].id,
      });
      const before = await storedOrder(id);
      const response = await update(sk, id, { product_id: withVariations.id });
      expect({ status: response.status, body: response.body }).toEqual({
        status: 400,
        body: badRequest({ product_variation_id: oneMessage }),
      });
      expect(await storedOrder(id)).toEqual(before);
      await update(sk, id, {
        product_id: withVariations.id,
        product_variation_id: withVariations.variations[0].id,
      }).expect(200);
      expect((await storedOrder(id)).product_variation_id).toBe(withVariations.variations[0].id);
    });

    it('refuses a 51-character note on an SK order, and nothing changes', async () => {
      const id = await placeOk(sk, { note: 'short' });
      const before = await storedOrder(id);
      const response = await update(sk, id, { note: 'n'.repeat(51) });
      expect({ status: response.status, body: response.body }).toEqual({
        status: 400,
        body: badRequest({ note: ['The note may not be greater than 50 characters on SK orders.'] }),
      });
      expect(await storedOrder(id)).toEqual(before);
    });

    it('refuses an invalid field with the placement messages', async () => {
      const id = await placeOk(sk);
      const response = await update(sk, id, { email: 'nope', first_name: 5, order_type: 'exchange' });
      expect({ status: response.status, body: response.body }).toEqual({
        status: 400,
        body: badRequest({
          email: ['The email must be a valid email address.'],
          first_name: ['The first name must be a string.'],
          order_type: [ORDER_TYPE_INVALID],
        }),
      });
    });

    it('refuses turning a regular order into an EXCHANGE without an original order', async () => {
      const id = await placeOk(sk);
      const response = await update(sk, id, { order_type: 'EXCHANGE' });
      expect({ status: response.status, body: response.body }).toEqual({
        status: 400,
        body: badRequest({ original_order_id: oneMessage }),
      });
    });

    it.each([[{}], [{ favourite_colour: 'blue' }]])('refuses the body %j with errors.body', async (body) => {
      const id = await placeOk(sk);
      const before = await storedOrder(id);
      const response = await update(sk, id, body);
      expect({ status: response.status, body: response.body }).toEqual({
        status: 400,
        body: badRequest({ body: oneMessage }),
      });
      expect(await storedOrder(id)).toEqual(before);
    });

    it("answers an unknown, non-numeric or another company's order with the same 404, and changes nothing", async () => {
      const foreign = await placeOk(other);
      const before = await storedOrder(foreign);
      for (const id of ['98765432', 'abc', '99999999999', String(foreign)]) {
        const response = await update(sk, id, { city: 'Hijacked' });
        expect({ id, status: response.status, body: response.body }).toEqual({
          id,
          status: 404,
          body: NOT_FOUND,
        });
      }
      expect(await storedOrder(foreign)).toEqual(before);
    });

    it.each(['SENT_TO_LOGISTICS', 'DISPATCHED', 'DELIVERED', 'COMPLETED'])(
      'refuses to update an order in state %s with 409, and changes nothing',
      async (state) => {
        const id = await placeOk(sk);
        await service.db.query('UPDATE orders SET state = $2 WHERE id = $1', [id, state]);
        const before = await storedOrder(id);
        await update(sk, id, { city: 'Too late' }).expect(409, SENT_CONFLICT);
        expect(await storedOrder(id)).toEqual(before);
      },
    );

    it('refuses to update a cancelled order with 409', async () => {
      const id = await placeOk(sk);
      await service.db.query(`UPDATE orders SET state = 'CANCELLED' WHERE id = $1`, [id]);
      const before = await storedOrder(id);
      await update(sk, id, { city: 'Too late' }).expect(409, CANCELLED_CONFLICT);
      expect(await storedOrder(id)).toEqual(before);
    });

    it('answers a foreign order in a locked state with 404, not 409', async () => {
      const foreign = await placeOk(other);
      await service.db.query(`UPDATE orders SET state = 'CANCELLED' WHERE id = $1`, [foreign]);
      await update(sk, foreign, { city: 'x' }).expect(404, NOT_FOUND);
    });

    it("refuses moving an order's original to another company's order, and changes nothing", async () => {
      const regular = await placeOk(sk);
      const id = await placeOk(sk, { order_type: 'RETURN', original_order_id: regular });
      const foreign = await placeOk(other);
      const before = await storedOrder(id);
      const response = await update(sk, id, { original_order_id: foreign });
      expect({ status: response.status, body: response.body }).toEqual({
        status: 400,
        body: badRequest({ original_order_id: [ORIGINAL_INVALID] }),
      });
      expect(await storedOrder(id)).toEqual(before);
    });

    it('answers an update of an EXCHANGE with its original as a string in GET', async () => {
      const regular = await placeOk(sk);
      const id = await placeOk(sk, { order_type: 'EXCHANGE', original_order_id: regular });
      const response = await update(sk, id, { city: 'Nitra' });
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        message: 'Order updated.',
        orders: [{ order_id: id, order_ref: refOf('SK', id), order_type: 'EXCHANGE' }],
      });
      expect((await getOrder(sk, id).expect(200)).body.original_order_id).toBe(String(regular));
    });

    it('applies the SK limit again when an update removes the country of a long-note order', async () => {
      const id = await placeOk(sk, { country: 'hu', note: 'n'.repeat(100) });
      const before = await storedOrder(id);
      const response = await update(sk, id, { country: null });
      expect({ status: response.status, body: response.body }).toEqual({
        status: 400,
        body: badRequest({ note: ['The note may not be greater than 50 characters on SK orders.'] }),
      });
      expect(await storedOrder(id)).toEqual(before);
    });

    it('refuses an update to a product id beyond any stored id with 400, not an error', async () => {
      const id = await placeOk(sk);
      const response = await update(sk, id, { product_id: 99999999999 });
      expect({ status: response.status, body: response.body }).toEqual({
        status: 400,
        body: badRequest({ product_id: [PRODUCT_INVALID] }),
      });
    });

    it('turns a placed order into a test order and back', async () => {
      const id = await placeOk(sk);
      await update(sk, id, { test: true }).expect(200);
      expect(await storedOrder(id)).toMatchObject({ state: 'TEST', test: true });
      await update(sk, id, { test: 'false' }).expect(200);
      expect(await storedOrder(id)).toMatchObject({ state: 'PLACED', test: false });
    });

    it('uses the new country for the site rule when the update changes it', async () => {
      const id = await placeOk(sk, { note: 'short' });
      const response = await update(sk, id, { country: 'hu', note: 'n'.repeat(100) });
      expect(response.status).toBe(200);
      expect((await storedOrder(id)).note).toBe('n'.repeat(100));
    });
  });
});
