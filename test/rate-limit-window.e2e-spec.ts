import Redis from 'ioredis';
import request from 'supertest';
import { createRestaurantOrdersClient, type RetryEvent } from '../clients/typescript/src/index.js';
import { issueToken, startApp, type TestApp } from './harness/app';
import { unique } from './harness/factories';

/**
 * CONTRACT §2: a fixed window; a refused request gets Retry-After = the seconds left in that window, neither
 * extends the refusal nor counts against the next window, so a client that waits Retry-After gets a whole
 * budget. A window of 4 s (RATE_LIMIT_WINDOW_MS, the setting for tests) shows in seconds what a minute does;
 * every timing has a second or more of slack, for a loaded machine.
 */
const WINDOW_MS = 4_000;
const PARTNER_BUDGET = 8;
const ADMIN_BUDGET = 10;
const ENV = {
  RATE_LIMIT_WINDOW_MS: String(WINDOW_MS),
  RATE_LIMIT_PER_MINUTE: String(PARTNER_BUDGET),
  ADMIN_RATE_LIMIT_PER_MINUTE: String(ADMIN_BUDGET),
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Caller {
  budget: number;
  /** The Authorization header; none for a request counted per client IP. */
  authorization?: string;
  /** The Redis key of its counter, cleared before a test (token ids restart in every database). */
  key: string;
  path: string;
  status: number;
}

interface Answer {
  status: number;
  remaining: number;
  reset: number;
  retryAfter: number | undefined;
}

/** A caller with a token of its own: `issued` as issueToken returns it. */
const tokenCaller = (issued: { id: number; token: string }, budget: number, path: string): Caller => ({
  budget,
  authorization: `Bearer ${issued.token}`,
  key: `{roa:rate:token:${issued.id}:default}:hits`,
  path,
  status: 200,
});

async function partnerCaller(app: TestApp): Promise<Caller> {
  const company = await app.db.query<{ id: number }>(
    `INSERT INTO companies (name, site) VALUES ($1, 'SK') RETURNING id`,
    [unique('Paced Bistro')],
  );
  const issued = await issueToken(app, { role: 'partner', companyId: company.rows[0].id });
  return tokenCaller(issued, PARTNER_BUDGET, '/api/v2/product');
}

async function adminCaller(app: TestApp): Promise<Caller> {
  const issued = await issueToken(app, { role: 'admin', userName: unique('operator') });
  return tokenCaller(issued, ADMIN_BUDGET, '/api/v2/admin/companies');
}

const anonymousCaller: Caller = {
  budget: PARTNER_BUDGET,
  key: '{roa:rate:ip:127.0.0.1:default}:hits',
  path: '/api/v2/product',
  status: 401,
};

/** One request of `caller` to `app`, reduced to what the rate limit says. */
async function call(app: TestApp, caller: Caller): Promise<Answer> {
  const exchange = request(app.url).get(caller.path);
  if (caller.authorization) exchange.set('Authorization', caller.authorization);
  const response = await exchange;
  if (response.status !== 429) expect(response.status).toBe(caller.status);
  const retryAfter = response.headers['retry-after'] as string | undefined;
  return {
    status: response.status,
    remaining: Number(response.headers['x-ratelimit-remaining']),
    reset: Number(response.headers['x-ratelimit-reset']),
    retryAfter: retryAfter === undefined ? undefined : Number(retryAfter),
  };
}

/**
 * Spends the budget, is refused halfway through the window (and sends more while refused), waits the
 * Retry-After it was given, and spends a whole budget again; `instances` take the requests in turn.
 */
async function refusedForTheRestOfTheWindow(instances: TestApp[], caller: Caller): Promise<void> {
  const next = (() => {
    let n = 0;
    return () => instances[(n += 1) % instances.length];
  })();
  const spent: Answer[] = [];
  let windowStartedBy = 0;
  for (let n = 0; n < caller.budget; n += 1) {
    spent.push(await call(next(), caller));
    windowStartedBy ||= Date.now();
  }
  expect(spent.map((answer) => [answer.status, answer.remaining])).toEqual(
    Array.from({ length: caller.budget }, (_, n) => [caller.status, caller.budget - 1 - n]),
  );
  expect(spent[0].reset).toBe(WINDOW_MS / 1000);

  await sleep(windowStartedBy + 1_000 - Date.now());
  const refusedAt = Date.now();
  const refused = await call(next(), caller);
  expect(refused.status).toBe(429);
  expect(refused.remaining).toBe(0);
  // The window ends by windowStartedBy + WINDOW_MS: Retry-After is what is left of it, rounded up, never a whole
  // window again.
  expect(refused.retryAfter).toBeGreaterThanOrEqual(1);
  expect(refused.retryAfter).toBeLessThanOrEqual(Math.ceil((windowStartedBy + WINDOW_MS - refusedAt) / 1000));
  expect(refused.reset).toBe(refused.retryAfter);
  for (let n = 0; n < 3; n += 1) {
    const again = await call(next(), caller);
    expect(again.status).toBe(429);
    expect(again.retryAfter).toBeLessThanOrEqual(refused.retryAfter!);
  }

  await sleep(refused.retryAfter! * 1000);
  const renewed: Answer[] = [];
  for (let n = 0; n <= caller.budget; n += 1) renewed.push(await call(next(), caller));
  expect(renewed.map((answer) => answer.status)).toEqual([
    ...Array.from({ length: caller.budget }, () => caller.status),
    429,
  ]);
  expect(renewed[0].remaining).toBe(caller.budget - 1);
}

/**
 * A client that sends one request every window/budget (the advertised rate) on a fixed schedule, whatever the
 * answers take, its first one late by most of a pace (as a real client's now and then is), so a request lands
 * before its window has ended. It ignores 429s and keeps its pace. Returns the statuses in the order sent.
 */
async function pacedAtTheLimit(instances: TestApp[], caller: Caller, windows: number): Promise<number[]> {
  const pace = WINDOW_MS / caller.budget;
  const start = Date.now();
  const answers: Promise<Answer>[] = [];
  for (let n = 0; n < windows * caller.budget; n += 1) {
    await sleep(start + (n === 0 ? 0.8 * pace : n * pace) - Date.now());
    answers.push(call(instances[n % instances.length], caller));
  }
  return (await Promise.all(answers)).map((answer) => answer.status);
}

/**
 * The pacing client's statuses: a 429 is a request lost at a window's edge (a few when the machine delays some
 * requests more than others), never the start of a refusal that lasts a window (`budget` refusals in a row).
 */
function expectOnlyEdgeRefusals(statuses: number[], caller: Caller, windows: number): void {
  expect(`${statuses.join(' ')} `).not.toContain('429 '.repeat(caller.budget / 2));
  const through = statuses.filter((status) => status === caller.status).length;
  expect(through).toBeGreaterThanOrEqual(statuses.length - 2 * windows);
}

/** A first request is slower (statements prepared, code compiled): the timed tests start on warm instances. */
async function warmUp(instances: TestApp[]): Promise<void> {
  const caller = await partnerCaller(instances[0]);
  for (const instance of instances) await call(instance, caller);
}

describe('the rate limit, a fixed window: in-process counters (no REDIS_URL)', () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startApp({ env: ENV });
    await warmUp([app]);
  });

  afterAll(async () => {
    await app.stop();
  });

  it('refuses a partner, an admin and an anonymous client for the rest of the window only, then gives each a whole budget', async () => {
    const callers = [await partnerCaller(app), await adminCaller(app), anonymousCaller];
    await Promise.all(callers.map((caller) => refusedForTheRestOfTheWindow([app], caller)));
  });

  it('lets a partner pacing itself at the limit through: it loses a request at a window edge, never a window', async () => {
    const caller = await partnerCaller(app);
    const statuses = await pacedAtTheLimit([app], caller, 2);
    expectOnlyEdgeRefusals(statuses, caller, 2);
  });

  it('has the SDK wait the rest of the window after a 429, not a whole one, and then succeed', async () => {
    const caller = await partnerCaller(app);
    for (let n = 0; n < caller.budget; n += 1) expect((await call(app, caller)).status).toBe(200);
    await sleep(1_000);
    const retries: RetryEvent[] = [];
    const sdk = createRestaurantOrdersClient(app.url, caller.authorization!.slice('Bearer '.length), {
      // A wait longer than 5 s would come back as the 429 itself: the test never waits a minute.
      retry: { maxWaitSeconds: 5, onRetry: (retry) => retries.push(retry) },
    });
    const { response } = await sdk.GET('/api/v2/product');
    expect(response.status).toBe(200);
    expect(retries.map(({ attempt, status }) => ({ attempt, status }))).toEqual([
      { attempt: 1, status: 429 },
    ]);
    expect(retries[0].waitMs).toBeGreaterThanOrEqual(1_000);
    expect(retries[0].waitMs).toBeLessThan(WINDOW_MS);
  });
});

const withRedis = process.env.REDIS_URL ? describe : describe.skip;

withRedis('the rate limit, a fixed window: two instances sharing one Redis', () => {
  let first: TestApp;
  let second: TestApp;
  let redis: Redis;

  beforeAll(async () => {
    const env = { ...ENV, REDIS_URL: process.env.REDIS_URL! };
    first = await startApp({ env });
    second = await startApp({ env: { ...env, DATABASE_URL: first.databaseUrl } });
    redis = new Redis(process.env.REDIS_URL!);
    await warmUp([first, second]);
  });

  afterAll(async () => {
    await second?.stop();
    await first?.stop();
    redis?.disconnect();
  });

  /** Token ids restart in every database and keys outlive a run: each caller starts from a clear counter. */
  const cleared = async (caller: Caller) => {
    await redis.del(caller.key);
    return caller;
  };

  it('refuses a partner, an admin and an anonymous client for the rest of the window only, then gives each a whole budget', async () => {
    const callers = [
      await cleared(await partnerCaller(first)),
      await cleared(await adminCaller(first)),
      await cleared(anonymousCaller),
    ];
    await Promise.all(callers.map((caller) => refusedForTheRestOfTheWindow([first, second], caller)));
  });

  it('lets a partner pacing itself at the limit through: it loses a request at a window edge, never a window', async () => {
    const caller = await cleared(await partnerCaller(first));
    const statuses = await pacedAtTheLimit([first, second], caller, 2);
    expectOnlyEdgeRefusals(statuses, caller, 2);
  });
});
