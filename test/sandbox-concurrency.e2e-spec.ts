import request from 'supertest';
import { issueAdminToken, startApp, type TestApp } from './harness/app';
import { Fixtures, orderBody, type Partner } from './harness/factories';

const TARGETS = ['SENT_TO_LOGISTICS', 'DISPATCHED', 'DELIVERED', 'COMPLETED', 'CANCELLED'] as const;
const CALLS = 10;

/**
 * Issue 31, item 9: concurrent simulations of one order are applied one after the other, each answered as if
 * sent after the one before (CONTRACT §4.9, STYLE: row locks decide races). Ten calls to the same state move the
 * order once; the nine others get the 409 a sequential repeat gets.
 */
describe('the sandbox under concurrent calls: POST /order/{id}/simulate', () => {
  let app: TestApp;
  let partner: Partner;
  let productId: number;

  const as = (token: string) => ({ Authorization: `Bearer ${token}` });
  const place = async (): Promise<number> => {
    const response = await request(app.url)
      .post('/api/v2/order')
      .set(as(partner.token))
      .send(orderBody(productId, { test: true }));
    expect(response.status).toBe(201);
    return Number(response.body.orders[0].order_id);
  };
  const simulate = (id: number, to: string) =>
    request(app.url).post(`/api/v2/order/${id}/simulate`).set(as(partner.token)).send({ to });
  const stateChanges = async (id: number) =>
    (
      await app.db.query<{ state: string }>(
        `SELECT data->>'state' AS state FROM events
          WHERE order_id = $1 AND type = 'order.state_changed' ORDER BY id`,
        [id],
      )
    ).rows.map((row) => row.state);
  const stored = async (id: number) =>
    (await app.db.query('SELECT state, version FROM orders WHERE id = $1', [id])).rows[0] as {
      state: string;
      version: number;
    };

  beforeAll(async () => {
    app = await startApp({
      env: { RATE_LIMIT_PER_MINUTE: '100000', ADMIN_RATE_LIMIT_PER_MINUTE: '100000' },
    });
    const fixtures = new Fixtures(app.url, await issueAdminToken(app));
    partner = await fixtures.partner();
    productId = (await fixtures.product()).id;
  });

  afterAll(async () => {
    await app.stop();
  });

  it.each(TARGETS)(
    'answers 10 concurrent calls to %s with one 200 and nine 409s, as a sequential repeat is answered',
    async (to) => {
      const id = await place();
      const responses = await Promise.all(Array.from({ length: CALLS }, () => simulate(id, to)));
      const repeat = await simulate(id, to);
      const refusal = { message: `The order is ${to}: the sandbox cannot move it to ${to}.` };
      expect(repeat.status).toBe(409);
      expect(repeat.body).toEqual(refusal);

      const moved = responses.filter((response) => response.status === 200);
      expect(responses.map((response) => response.status).sort()).toEqual([
        200,
        ...Array.from({ length: CALLS - 1 }, () => 409),
      ]);
      expect(moved[0].body).toMatchObject({ order_id: id, state: to, test: true });
      for (const response of responses.filter((refused) => refused.status === 409))
        expect(response.body).toEqual(refusal);

      // The order moved once, each step once: the path from TEST, and no step twice.
      const path = to === 'CANCELLED' ? ['CANCELLED'] : TARGETS.slice(0, TARGETS.indexOf(to) + 1);
      expect(await stateChanges(id)).toEqual(path);
      const { state, version } = await stored(id);
      expect(state).toBe(to);
      expect(moved[0].headers.etag).toBe(`"${version}"`);
    },
  );
});
