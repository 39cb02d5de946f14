import { Client } from 'pg';
import { fromDist, startApp, type TestApp } from '../harness/app';
import { eventually } from '../harness/eventually';
import { orderBody, unique } from '../harness/factories';

const { EventsService } = fromDist<typeof import('../../src/outbox/events.service')>('outbox/events.service');
const { OrdersService } = fromDist<typeof import('../../src/orders/application/orders.service')>(
  'orders/application/orders.service',
);

const ACTOR = { tokenId: null, userName: 'medium-feed', requestId: null };
/** One event of `order`, written by the transaction that runs it (as EventsRepository.insert writes them). */
const INSERT_EVENT = `INSERT INTO events (company_id, subject_type, order_id, type, data, transaction_id)
  SELECT company_id, 'order', id, 'order.updated', '{}', pg_current_xact_id()::text::bigint
  FROM orders WHERE id = $1 RETURNING id`;

/**
 * The event feed's snapshot rule (EventsRepository.feed), called in process on a real PostgreSQL: the feed is
 * ordered by writing transaction, and shows an event only once no transaction that started before it can still
 * commit one: a reader that moved past an event never misses one that a slower, earlier transaction commits.
 */
describe('the event feed: events appear only once no earlier transaction can still write one before them', () => {
  let app: TestApp;
  let events: InstanceType<typeof EventsService>;
  let companyId: number;
  let orderId: number;
  let slow: Client;
  let fast: Client;

  const feed = async (after?: string) => (await events.feed(companyId, after)).map((event) => event.id);
  const insertEvent = async (client: Client) =>
    String((await client.query<{ id: string }>(INSERT_EVENT, [orderId])).rows[0].id);

  beforeAll(async () => {
    app = await startApp({ env: { WEBHOOK_DISPATCHER: 'false' } });
    events = app.get(EventsService);
    companyId = (
      await app.db.query<{ id: number }>(
        "INSERT INTO companies (name, site) VALUES ($1, 'SK') RETURNING id",
        [unique('Feed')],
      )
    ).rows[0].id;
    const productId = (
      await app.db.query<{ id: number }>('INSERT INTO products (name) VALUES ($1) RETURNING id', [
        unique('Terminal'),
      ])
    ).rows[0].id;
    orderId = (await app.get(OrdersService).place(ACTOR, companyId, orderBody(productId))).id;
    slow = new Client({ connectionString: app.databaseUrl });
    fast = new Client({ connectionString: app.databaseUrl });
    await Promise.all([slow.connect(), fast.connect()]);
  });

  afterAll(async () => {
    await Promise.all([slow?.end(), fast?.end()]);
    await app?.stop();
  });

  it('holds back a committed event while an earlier transaction runs, then shows both in transaction order', async () => {
    // Other transactions on the server hold the feed back too (the snapshot is the server's): asked again.
    let placed: string[] = [];
    await eventually(
      async () => (placed = await feed()).length === 1,
      () => 'the placement never reached the feed',
    );

    await slow.query('BEGIN');
    const early = await insertEvent(slow);
    const late = await insertEvent(fast);
    expect(Number(late)).toBeGreaterThan(Number(early));
    expect(await feed()).toEqual(placed);
    expect(await feed(`evt_${placed[0]}`)).toEqual([]);

    await slow.query('COMMIT');
    let all: string[] = [];
    await eventually(
      async () => (all = await feed()).length === 3,
      () => `the feed shows ${String(all)} once both transactions committed`,
    );
    expect(all).toEqual([placed[0], early, late]);
    expect(await feed(`evt_${placed[0]}`)).toEqual([early, late]);
  });

  it('orders by transaction, not by row id: an event written later by an earlier transaction comes first', async () => {
    await slow.query('BEGIN');
    await slow.query('SELECT pg_current_xact_id()');
    const fromLaterTransaction = await insertEvent(fast);
    const fromEarlierTransaction = await insertEvent(slow);
    await slow.query('COMMIT');
    expect(Number(fromEarlierTransaction)).toBeGreaterThan(Number(fromLaterTransaction));
    let tail: string[] = [];
    await eventually(
      async () =>
        (tail = (await feed()).slice(-2)).includes(fromLaterTransaction) &&
        tail.includes(fromEarlierTransaction),
      () => `the feed ends with ${String(tail)}`,
    );
    expect(tail).toEqual([fromEarlierTransaction, fromLaterTransaction]);
  });

  it('never shows a rolled-back event', async () => {
    await slow.query('BEGIN');
    const rolledBack = await insertEvent(slow);
    await slow.query('ROLLBACK');
    const committed = await insertEvent(fast);
    let shown: string[] = [];
    await eventually(
      async () => (shown = await feed()).includes(committed),
      () => 'the committed event never reached the feed',
    );
    expect(shown).not.toContain(rolledBack);
  });
});
