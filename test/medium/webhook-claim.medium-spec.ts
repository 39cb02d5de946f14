import { fromDist, startApp, type TestApp } from '../harness/app';
import { unique } from '../harness/factories';

type DeliveryQueueModule = typeof import('../../src/webhooks/delivery-queue');
type ClaimBounds = import('../../src/webhooks/delivery-queue').ClaimBounds;
type ClaimedDelivery = import('../../src/webhooks/delivery-queue').ClaimedDelivery;
type DeliveryQueue = import('../../src/webhooks/delivery-queue').DeliveryQueue;

const LEASE_MS = 60_000;

/** A claim of up to `limit` with no endpoint's cap in the way, unless `sending` says otherwise. */
const bounds = (limit: number, overrides: Partial<ClaimBounds> = {}): ClaimBounds => ({
  limit,
  scan: limit * 2,
  perEndpoint: 1_000,
  sending: { endpointIds: [], inFlight: [], paceMs: [], waitUntil: [], skipped: [] },
  leaseMs: LEASE_MS,
  ...overrides,
});

const ids = (claimed: ClaimedDelivery[]): string[] => claimed.map((delivery) => delivery.id);

/** The deliveries one turn that records nothing claims. */
const claim = async (claimer: DeliveryQueue, within: ClaimBounds): Promise<ClaimedDelivery[]> =>
  (await claimer.turn([], within, LEASE_MS)).claimed;

/**
 * The dispatcher's claim statement (DeliveryQueue.turn), called in process on PostgreSQL by two instances of the
 * service on one database whose own dispatchers are off (SERVICE_ROLE=api): what the claim takes, in what order,
 * and what it never takes.
 */
describe('the webhook dispatcher’s claim (DeliveryQueue)', () => {
  let first: TestApp;
  let second: TestApp;
  let queue: DeliveryQueue;
  let otherQueue: DeliveryQueue;
  let companyId: number;

  async function endpoint(): Promise<number> {
    const { rows } = await first.db.query(
      `INSERT INTO webhook_endpoints (company_id, url, secret) VALUES ($1, 'http://127.0.0.1:9/hook', 'sealed')
       RETURNING id`,
      [companyId],
    );
    return rows[0].id as number;
  }

  /** Deliveries to the endpoint, one event each, due `dueInSeconds` from now (negative: due already); their ids. */
  async function deliveries(endpointId: number, dueInSeconds: number[]): Promise<string[]> {
    const { rows } = await first.db.query(
      `WITH due AS (SELECT * FROM unnest($3::double precision[]) WITH ORDINALITY AS d(seconds, position)),
       event AS (
         INSERT INTO events (company_id, order_id, type, data, transaction_id)
         SELECT $1, position, 'order.placed', json_build_object('order_id', position), 1 FROM due ORDER BY position
         RETURNING id
       ),
       numbered AS (SELECT id, row_number() OVER (ORDER BY id) AS position FROM event)
       INSERT INTO webhook_deliveries (event_id, event_type, endpoint_id, next_attempt_at)
       SELECT numbered.id, 'order.placed', $2, now() + make_interval(secs => due.seconds)
       FROM numbered JOIN due USING (position) ORDER BY position
       RETURNING id`,
      [companyId, endpointId, dueInSeconds],
    );
    return rows.map((row) => row.id as string);
  }

  beforeAll(async () => {
    first = await startApp({ env: { SERVICE_ROLE: 'api' } });
    second = await startApp({ env: { SERVICE_ROLE: 'api', DATABASE_URL: first.databaseUrl } });
    const { DeliveryQueue } = fromDist<DeliveryQueueModule>('webhooks/delivery-queue');
    queue = first.get(DeliveryQueue);
    otherQueue = second.get(DeliveryQueue);
    const { rows } = await first.db.query(
      `INSERT INTO companies (name, site) VALUES ($1, 'SK') RETURNING id`,
      [unique('Claims')],
    );
    companyId = rows[0].id as number;
  });

  beforeEach(async () => {
    // Each case claims from a queue of its own making.
    await first.db.query(`UPDATE webhook_deliveries SET status = 'cancelled' WHERE status = 'pending'`);
  });

  afterAll(async () => {
    await second?.stop();
    await first?.stop();
  });

  it('gives two claimers at the same time disjoint deliveries, every due one to one of them', async () => {
    const endpoints = [await endpoint(), await endpoint(), await endpoint(), await endpoint()];
    const queued = (
      await Promise.all(endpoints.map((id) => deliveries(id, Array<number>(50).fill(-1))))
    ).flat();
    const drain = async (claimer: DeliveryQueue): Promise<string[]> => {
      const taken: string[] = [];
      for (;;) {
        const claimed = await claim(claimer, bounds(15));
        if (claimed.length === 0) return taken;
        taken.push(...ids(claimed));
      }
    };

    const [mine, theirs] = await Promise.all([drain(queue), drain(otherQueue)]);

    expect(mine.filter((id) => theirs.includes(id))).toEqual([]);
    expect([...mine, ...theirs].sort()).toEqual([...queued].sort());
    const { rows } = await first.db.query(
      `SELECT count(*) FILTER (WHERE attempt_count = 1 AND in_flight_until > now()) AS claimed_once
       FROM webhook_deliveries WHERE id = ANY ($1::bigint[])`,
      [queued],
    );
    expect(Number(rows[0].claimed_once)).toBe(200);
  });

  it('never claims a delivery in flight again, by a claim or a hand retry, until its lease runs out', async () => {
    const [a, b, c] = await deliveries(await endpoint(), [-3, -2, -1]);
    const claimed = await claim(queue, bounds(10));
    expect(ids(claimed)).toEqual([a, b, c]);
    expect(claimed[0]).toMatchObject({ attemptCount: 1, byHand: false, event: { type: 'order.placed' } });

    expect(await claim(otherQueue, bounds(10))).toEqual([]);
    const { UnitOfWork } = fromDist<typeof import('../../src/platform/database/unit-of-work')>(
      'platform/database/unit-of-work',
    );
    const byHand = await second
      .get(UnitOfWork)
      .transaction((manager) => otherQueue.claimForRetry(manager, b, LEASE_MS));
    expect(byHand).toBeNull();

    // a's attempt ends and is recorded (succeeded); c's claimant dies: its lease runs out.
    const attemptedAt = new Date();
    await queue.turn(
      [
        {
          deliveryId: a,
          attemptNumber: 1,
          requestBody: '{}',
          outcome: { kind: 'succeeded' },
          attempt: {
            attemptedAt,
            statusCode: 200,
            durationMs: 3,
            error: null,
            requestHeaders: {},
            responseHeaders: {},
            responseBody: 'ok',
            responseBodyTruncated: false,
          },
        },
      ],
      null,
      LEASE_MS,
    );
    await first.db.query(
      `UPDATE webhook_deliveries SET in_flight_until = now() - interval '1 second',
         next_attempt_at = now() - interval '1 second' WHERE id = $1`,
      [c],
    );

    const again = await claim(otherQueue, bounds(10));
    expect(ids(again)).toEqual([c]);
    expect(again[0].attemptCount).toBe(2);
    const { rows } = await first.db.query(
      `SELECT d.id, d.status, d.in_flight_until IS NULL AS landed, count(a.id)::integer AS attempts
       FROM webhook_deliveries d LEFT JOIN webhook_attempts a ON a.delivery_id = d.id
       WHERE d.id = ANY ($1::bigint[]) GROUP BY d.id ORDER BY d.id`,
      [[a, b, c]],
    );
    expect(rows).toEqual([
      { id: a, status: 'succeeded', landed: true, attempts: 1 },
      { id: b, status: 'pending', landed: false, attempts: 0 },
      { id: c, status: 'pending', landed: false, attempts: 0 },
    ]);
  });

  it('claims due deliveries oldest due first, and never one that is not due yet', async () => {
    const target = await endpoint();
    const [late, oldest, middle, future, recent, newest] = await deliveries(
      target,
      [-10, -30, -20, 60, -5, -1],
    );

    expect(ids(await claim(queue, bounds(3)))).toEqual([oldest, middle, late]);
    expect(ids(await claim(queue, bounds(10)))).toEqual([recent, newest]);
    expect(await claim(queue, bounds(10))).toEqual([]);
    const { rows } = await first.db.query('SELECT attempt_count FROM webhook_deliveries WHERE id = $1', [
      future,
    ]);
    expect(rows[0].attempt_count).toBe(0);
  });

  const dueTimes = async (deliveryIds: string[]): Promise<number[]> =>
    (
      await first.db.query(
        `SELECT extract(epoch FROM next_attempt_at - now()) AS seconds FROM webhook_deliveries
         WHERE id = ANY ($1::bigint[]) ORDER BY id`,
        [deliveryIds],
      )
    ).rows.map((row) => Number(row.seconds));

  it('takes no more of an endpoint than its free slots, and moves its other due ones to when a slot frees up', async () => {
    const busy = await endpoint();
    const quiet = await endpoint();
    const busyOnes = await deliveries(busy, [-60, -59, -58, -57, -56, -55, -54, -53, -52, -51]);
    const quietOnes = await deliveries(quiet, [-3, -2, -1]);

    // Two attempts of `busy` in flight, a cap of 3, a slot freeing up every second: one more of it now, the
    // others' due ones, and busy's nine others moved one second apart.
    const turn = await queue.turn(
      [],
      bounds(10, {
        perEndpoint: 3,
        sending: { endpointIds: [busy], inFlight: [2], paceMs: [1_000], waitUntil: [0], skipped: [] },
      }),
      LEASE_MS,
    );

    expect(ids(turn.claimed)).toEqual([busyOnes[0], ...quietOnes]);
    expect(turn.waiting.map((waiting) => waiting.endpointId)).toEqual([busy]);
    const moved = await dueTimes(busyOnes.slice(1));
    moved.forEach((seconds, index) => expect(seconds).toBeCloseTo(index + 1, 0));
    expect(turn.waiting[0].until.getTime() - Date.now()).toBeGreaterThan(8_000);
    expect(await claim(queue, bounds(10))).toEqual([]);
  });

  it("never lets a full endpoint's due deliveries keep a claim from the others': each turn moves what it read", async () => {
    const busy = await endpoint();
    const quiet = await endpoint();
    const backlog = await deliveries(
      busy,
      Array.from({ length: 50 }, (_, index) => -100 + index),
    );
    const quietOnes = await deliveries(quiet, [-2, -1]);

    // `busy` is at its cap (3 of 3 in flight), a slot freeing up every second: each turn reads 10, and moves them
    // after those the last one placed.
    let waitUntil = 0;
    const claimed: string[] = [];
    let turns = 0;
    while (claimed.length < 2 && turns < 10) {
      const turn = await queue.turn(
        [],
        bounds(5, {
          scan: 10,
          perEndpoint: 3,
          sending: {
            endpointIds: [busy],
            inFlight: [3],
            paceMs: [1_000],
            waitUntil: [waitUntil],
            skipped: [],
          },
        }),
        LEASE_MS,
      );
      turns += 1;
      claimed.push(...ids(turn.claimed));
      for (const { until } of turn.waiting) waitUntil = until.getTime();
    }

    expect(claimed).toEqual(quietOnes);
    expect(turns).toBe(6);
    const moved = await dueTimes(backlog);
    expect(moved.every((seconds) => seconds > 0)).toBe(true);
    // One pace (a second) apart: fifty places, none twice.
    expect(new Set(moved.map((seconds) => Math.round(seconds))).size).toBe(50);
    expect(Math.max(...moved)).toBeCloseTo(50, 0);
  });

  it("passes over a fast endpoint's due deliveries while it is at its cap, and leaves them due", async () => {
    const fast = await endpoint();
    const quiet = await endpoint();
    const backlog = await deliveries(
      fast,
      Array.from({ length: 30 }, (_, index) => -100 + index),
    );
    const quietOnes = await deliveries(quiet, [-2, -1]);

    const turn = await queue.turn(
      [],
      bounds(5, {
        scan: 5,
        perEndpoint: 3,
        sending: { endpointIds: [fast], inFlight: [3], paceMs: [1], waitUntil: [0], skipped: [fast] },
      }),
      LEASE_MS,
    );

    expect(ids(turn.claimed)).toEqual(quietOnes);
    expect(turn.waiting).toEqual([]);
    expect((await dueTimes(backlog)).every((seconds) => seconds < 0)).toBe(true);
  });
});
