import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import { issueAdminToken, startApp, type TestApp } from './harness/app';
import { asText } from './harness/as-text';
import { eventually } from './harness/eventually';
import { Fixtures, orderBody, type Partner } from './harness/factories';
import { type LogLine } from './harness/service';
import { startWebhookReceiver, type WebhookReceiver } from './harness/webhook-receiver';

/**
 * The SQL the service sends, reviewed as SQL: each scenario's statements (from the request log's `sql`, with
 * LOG_SQL=true; the webhook dispatcher's and the periodic jobs' from their iterations' job lines) are compared
 * with `queries/<scenario>.sql`, one statement per paragraph, whitespace collapsed. A change that alters a statement
 * fails here with the diff; `UPDATE_SQL_SNAPSHOTS=1 npx jest test/sql-snapshots.e2e-spec.ts` rewrites the files,
 * and the diff is reviewed with the change. The files sit at the top of the repository, outside `src/`: they
 * span modules, and rewriting them never makes the build stale.
 *
 * The texts are fixed: every value (ids, dates, names) is a parameter. Each scenario's request is preceded by a
 * warm-up with the same token, so the token's lookup is cached and its last use recorded (`authenticate` pins
 * those two statements on a token's first request).
 */
const SNAPSHOTS = join(__dirname, '..', 'queries');
const UPDATE = process.env.UPDATE_SQL_SNAPSHOTS === '1';

/** Whitespace collapsed, one statement per paragraph. */
const normalised = (statements: string[]): string =>
  statements.map((statement) => statement.replace(/\s+/g, ' ').trim()).join('\n\n') + '\n';

/** Where two texts part, with some context: a statement is one long line, which a line diff shows whole. */
function firstDifference(expected: string, actual: string): string {
  let at = 0;
  while (at < expected.length && expected[at] === actual[at]) at += 1;
  const around = (text: string) => `…${text.slice(Math.max(0, at - 80), at + 80).replace(/\n/g, '⏎')}…`;
  const before = expected.slice(0, at).split('\n\n');
  return `statement ${before.length}, from its character ${before[before.length - 1].length}:\n  snapshot: ${around(expected)}\n  now:      ${around(actual)}`;
}

function expectSnapshot(scenario: string, statements: string[]): void {
  const file = join(SNAPSHOTS, `${scenario}.sql`);
  const actual = normalised(statements);
  if (UPDATE) {
    mkdirSync(SNAPSHOTS, { recursive: true });
    writeFileSync(file, actual);
    return;
  }
  const expected = existsSync(file) ? readFileSync(file, 'utf8') : '';
  try {
    expect(actual).toBe(expected);
  } catch (error) {
    (error as Error).message =
      `queries/${scenario}.sql does not match the statements sent (- snapshot, + now). If the change is ` +
      `meant, run UPDATE_SQL_SNAPSHOTS=1 npx jest test/sql-snapshots.e2e-spec.ts and review the diff as SQL.\n` +
      `${firstDifference(expected, actual)}\n\n${(error as Error).message}`;
    throw error;
  }
}

describe('SQL snapshots (queries/*.sql)', () => {
  let service: TestApp;
  let receiver: WebhookReceiver;
  let fixtures: Fixtures;
  let admin: string;
  let partner: Partner;
  let logistics: string;
  let productId: number;
  let orderId: number;

  const api = () => request(service.url);
  const as = (token: string) => ({ Authorization: `Bearer ${token}` });

  const lineOf = async (requestId: string): Promise<LogLine> => {
    let line: LogLine | undefined;
    await eventually(
      () => (line = service.logs().find((entry) => entry.requestId === requestId)) !== undefined,
      () => `no log line for ${requestId}`,
    );
    return line!;
  };

  /** The token's lookup cached and its last use recorded: the scenario's request sends only its own SQL. */
  const warm = async (token: string) => {
    const path = token === logistics ? '/api/v2/logistics/orders?per_page=1' : '/api/v2/product?per_page=1';
    await api().get(path).set(as(token)).expect(200);
  };

  let requests = 0;
  /**
   * Sends one request with `token` (warmed first unless `cold`) and a request id of its own; resolves with the
   * statements it sent and its response.
   */
  const sent = async (
    token: string,
    send: (headers: Record<string, string>) => request.Test,
    cold = false,
  ): Promise<{ statements: string[]; response: request.Response }> => {
    if (!cold) await warm(token);
    requests += 1;
    const requestId = `sql-snapshot-${requests}`;
    const response = await send({ ...as(token), 'X-Request-Id': requestId });
    return { statements: (await lineOf(requestId)).sql as string[], response };
  };
  const partnerGet = async (path: string): Promise<string[]> =>
    (await sent(partner.token, (headers) => api().get(path).set(headers).expect(200))).statements;

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    service = await startApp({
      env: {
        LOG_SQL: 'true',
        REQUEST_LOG_FLUSH_MS: '20',
        WEBHOOK_ALLOW_PRIVATE: 'true',
        WEBHOOK_POLL_INTERVAL_MS: '200',
        RATE_LIMIT_PER_MINUTE: '100000',
        ADMIN_RATE_LIMIT_PER_MINUTE: '100000',
      },
    });
    admin = await issueAdminToken(service);
    fixtures = new Fixtures(service.url, admin);
    partner = await fixtures.partner('SK');
    logistics = await fixtures.logisticsToken('sql-courier');
    productId = (await fixtures.product()).id;
  });

  afterAll(async () => {
    await service?.stop();
    await receiver?.close();
  });

  it('authenticate: a token’s first request looks it up and records its use', async () => {
    const first = await sent(
      partner.token,
      (headers) => api().get('/api/v2/product?per_page=1').set(headers).expect(200),
      true,
    );
    expectSnapshot('authenticate', first.statements);
  });

  /** The company's site and the product are looked up on the first placement (then cached), as here. */
  it('place-order', async () => {
    const placed = await sent(partner.token, (headers) =>
      api().post('/api/v2/order').set(headers).send(orderBody(productId)).expect(201),
    );
    orderId = Number(placed.response.body.orders[0].order_id);
    expectSnapshot('place-order', placed.statements);
  });

  it('read-order', async () => {
    expectSnapshot('read-order', await partnerGet(`/api/v2/order/${orderId}`));
  });

  it('request-log: a page of the list with a filter, the errors grouped, a request with what it caused', async () => {
    expectSnapshot('request-log-list', await partnerGet('/api/v2/requests?status=2xx&per_page=5'));
    expectSnapshot('request-log-errors', await partnerGet('/api/v2/requests/errors?from=2026-01-01'));
    // The placement's request (sql-snapshot-2), once the writer has written it: its order, events and deliveries.
    await eventually(
      async () =>
        (await service.db.query(`SELECT 1 FROM request_log WHERE request_id = 'sql-snapshot-2'`)).rowCount ===
        1,
      () => 'the placement never reached the request log',
    );
    expectSnapshot('request-log-detail', await partnerGet('/api/v2/requests/sql-snapshot-2'));
  });

  it('comment', async () => {
    const comment = await sent(partner.token, (headers) =>
      api()
        .post(`/api/v2/order/${orderId}/comment`)
        .set(headers)
        .send({ partner_comment: 'Ring twice.' })
        .expect(200),
    );
    expectSnapshot('comment', comment.statements);
  });

  it('logistics-queue', async () => {
    const queue = await sent(logistics, (headers) =>
      api().get('/api/v2/logistics/orders').set(headers).expect(200),
    );
    expectSnapshot('logistics-queue', queue.statements);
  });

  it('logistics-sent', async () => {
    const marked = await sent(logistics, (headers) =>
      api().post(`/api/v2/logistics/orders/${orderId}/sent`).set(headers).expect(200),
    );
    expectSnapshot('logistics-sent', marked.statements);
  });

  it('logistics-put-tracking', async () => {
    const tracking = await sent(logistics, (headers) =>
      api()
        .put(`/api/v2/logistics/orders/${orderId}/trackings/PKG1`)
        .set(headers)
        .send({ status: 'Picked up', dispatch_date: '2026-11-21T08:00' })
        .expect(201),
    );
    expectSnapshot('logistics-put-tracking', tracking.statements);
  });

  /** GET /order with no filter, then with each filter of CONTRACT §4.2 alone. */
  const FILTERS: Record<string, () => string> = {
    'list-orders': () => '',
    'list-orders-by-order-id': () => `order_id=${orderId}`,
    'list-orders-created-from': () => 'created_from=2026-01-01',
    'list-orders-created-to': () => 'created_to=2099-12-31',
    'list-orders-by-tracking-number': () => 'tracking_number=PKG1',
    'list-orders-delivered': () => 'delivered=true',
    'list-orders-not-delivered': () => 'delivered=false',
    'list-orders-delivered-from': () => 'delivered_from=2026-01-01',
    'list-orders-delivered-to': () => 'delivered_to=2099-12-31',
    'list-orders-by-order-type': () => 'order_type=REGULAR',
    'list-orders-by-state': () => 'state=SENT_TO_LOGISTICS',
    'list-orders-updated-from': () => 'updated_from=2026-01-01',
    'list-orders-updated-to': () => 'updated_to=2099-12-31',
  };
  for (const [scenario, query] of Object.entries(FILTERS)) {
    it(scenario, async () => {
      expectSnapshot(scenario, await partnerGet(`/api/v2/order?${query()}`));
    });
  }

  it('export-csv', async () => {
    const exported = await sent(partner.token, (headers) =>
      api().get('/api/v2/orders/export?format=csv').set(headers).buffer(true).parse(asText).expect(200),
    );
    expectSnapshot('export-csv', exported.statements);
  });

  it('events-feed and events-feed-after', async () => {
    // An event is listed once every transaction that started before it has finished, cluster-wide.
    await eventually(
      async () =>
        (await api().get('/api/v2/events').set(as(partner.token)).expect(200)).body.data.length >= 3,
      () => 'the feed never listed the order’s events',
    );
    expectSnapshot('events-feed', await partnerGet('/api/v2/events'));
    const first = (await api().get('/api/v2/events').set(as(partner.token)).expect(200)).body.data[0] as {
      id: string;
    };
    expectSnapshot('events-feed-after', await partnerGet(`/api/v2/events?after=${first.id}`));
  });

  it('webhook-delivery: the dispatcher’s turn, one statement that records ended attempts and claims due deliveries', async () => {
    await api()
      .post('/api/v2/admin/webhooks')
      .set(as(admin))
      .send({ company_id: partner.companyId, url: `${receiver.url}/hook` })
      .expect(201);
    const placedAt = service.logs().length;
    await api().post('/api/v2/order').set(as(partner.token)).send(orderBody(productId)).expect(201);
    await receiver.waitFor((received) => received.length === 1);
    let iteration: LogLine | undefined;
    await eventually(
      () =>
        (iteration = service
          .logs()
          .slice(placedAt)
          .find((line) => line.job === 'webhook-dispatch')) !== undefined,
      () => 'no dispatcher turn line after the placement',
    );
    expectSnapshot('webhook-delivery', iteration!.sql as string[]);
  });

  it('periodic jobs: the idempotency keys’ cleanup and the delivery log’s purge, as each ran at start', async () => {
    const runOf = (job: string) => service.logs().find((line) => line.job === job);
    await eventually(
      () => runOf('idempotency-cleanup') !== undefined && runOf('webhook-log-purge') !== undefined,
      () => 'no job line of a periodic job’s first run',
    );
    expectSnapshot('idempotency-cleanup', runOf('idempotency-cleanup')!.sql as string[]);
    expectSnapshot('webhook-log-purge', runOf('webhook-log-purge')!.sql as string[]);
  });
});
