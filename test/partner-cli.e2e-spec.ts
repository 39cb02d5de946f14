import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { constructWebhookEvent, type WebhookEvent } from '../clients/typescript/src/index.js';
import { runCli } from '../clients/typescript/src/cli/program.js';
import { EVENT_TYPES } from '../clients/typescript/src/cli/event-types.js';
import { issueAdminToken, startApp, type TestApp } from './harness/app';
import { eventually } from './harness/eventually';
import { Fixtures, orderBody, type Partner } from './harness/factories';
import { unusedPort } from './harness/fault-servers';
import { FAST_DISPATCH, startWebhookReceiver, type WebhookReceiver } from './harness/webhook-receiver';

/**
 * The partners' command-line tool (CONTRACT §8, the SDK package's `bin`), run in this process through its entry
 * function against the service built here: `listen` forwards real events to a local receiver, signed so that the
 * SDK's verifier accepts them, resumes after a restart and filters types; `trigger` makes each event type happen
 * on a new TEST order; `logs tail` shows the requests made after it started, filtered as the API filters; bad input is one line on stderr and exit code 1; the token is never printed.
 */

/**
 * How long a spec waits for an event to reach the feed: it lists an event once every transaction older than it
 * has ended, in the whole PostgreSQL cluster (pg_current_snapshot), so another database's long transaction on a
 * shared test server holds it back for a while.
 */
const FEED_WAIT_MS = 60_000;
/** A spec that waits on the feed several times. */
const FEED_SPEC_MS = 4 * FEED_WAIT_MS;

/** The order an event is about (an import's events are about an import). */
const orderOf = (event: WebhookEvent): number | undefined =>
  'order_id' in event.data ? event.data.order_id : undefined;

interface Run {
  out: string[];
  err: string[];
  stop: AbortController;
  /** The exit code, once the command ends. */
  done: Promise<number>;
}

describe('the partner CLI (CONTRACT §8)', () => {
  let app: TestApp;
  let receiver: WebhookReceiver;
  let fixtures: Fixtures;
  let partner: Partner;
  let scratch: string;
  const runs: Run[] = [];

  /** Starts the tool with these arguments and the partner's token in its environment. */
  function start(
    args: string[],
    env: Record<string, string> = { RESTAURANT_ORDERS_TOKEN: partner.token },
  ): Run {
    const run: Run = { out: [], err: [], stop: new AbortController(), done: Promise.resolve(0) };
    run.done = runCli([...args], {
      env: { RESTAURANT_ORDERS_URL: app.url, HOME: scratch, ...env },
      out: (line) => run.out.push(line),
      err: (line) => run.err.push(line),
      signal: run.stop.signal,
    });
    runs.push(run);
    return run;
  }

  const place = async (body = {}) => {
    const placed = await request(app.url)
      .post('/api/v2/order')
      .set('Authorization', `Bearer ${partner.token}`)
      .send(body);
    expect(placed.status).toBe(201);
    return Number(placed.body.orders[0].order_id);
  };

  /** The company's whole feed. */
  async function feed(): Promise<WebhookEvent[]> {
    const events: WebhookEvent[] = [];
    for (;;) {
      const after = events.at(-1)?.id;
      const page = await request(app.url)
        .get('/api/v2/events')
        .query(after ? { after } : {})
        .set('Authorization', `Bearer ${partner.token}`);
      expect(page.status).toBe(200);
      if (page.body.data.length === 0) return events;
      events.push(...(page.body.data as WebhookEvent[]));
    }
  }

  const secretOf = (run: Run) => /Webhook signing secret: (whsec_\S+)/.exec(run.out.join('\n'))?.[1] ?? '';
  const ready = (run: Run) =>
    eventually(
      () => run.out.some((line) => line.startsWith('Ready.')),
      () => `listen is not ready: ${JSON.stringify(run)}`,
    );

  beforeAll(async () => {
    [app, receiver, scratch] = await Promise.all([
      startApp({ env: { ...FAST_DISPATCH, REQUEST_LOG_FLUSH_MS: '100' } }),
      startWebhookReceiver(() => 204),
      mkdtemp(join(tmpdir(), 'partner-cli-')),
    ]);
    fixtures = new Fixtures(app.url, await issueAdminToken(app));
    partner = await fixtures.partner();
    await fixtures.product(['Small', 'Large']);
  });

  afterAll(async () => {
    for (const run of runs) run.stop.abort();
    await Promise.all(runs.map((run) => run.done));
    // Nothing the tool wrote, on any stream in any test, shows the token.
    expect(runs.flatMap((run) => [...run.out, ...run.err]).join('\n')).not.toContain(partner.token);
    await Promise.all([
      app?.stop(),
      receiver?.close(),
      scratch && rm(scratch, { recursive: true, force: true }),
    ]);
  });

  it(
    'listen forwards new events signed as webhooks (the SDK verifier accepts them), resumes after a restart, and filters types',
    async () => {
      const productId = (await fixtures.product()).id;
      const before = await place(orderBody(productId));
      await eventually(
        async () => (await feed()).some((event) => orderOf(event) === before),
        () => 'the order placed before listen starts is not on the feed',
        FEED_WAIT_MS,
      );
      const stateFile = join(scratch, 'listen-state.json');
      const args = [
        'listen',
        '--forward-to',
        `${receiver.url}/hooks`,
        '--state-file',
        stateFile,
        '--poll-interval',
        '100',
      ];

      const first = start(args);
      await ready(first);
      expect(first.out).toContainEqual(expect.stringMatching(/^Starting after your latest event, evt_\d+/));
      const secret = secretOf(first);
      expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      const orderId = await place(orderBody(productId));
      await receiver.waitFor(
        (received) => received.some((hook) => hook.body.includes(`"order_id":${orderId}`)),
        FEED_WAIT_MS,
      );
      const [delivery] = receiver.at('/hooks');
      const event = constructWebhookEvent(delivery.body, delivery.headers, secret);
      expect(event).toMatchObject({ type: 'order.placed', data: { order_id: orderId, state: 'PLACED' } });
      expect(delivery.headers['content-type']).toBe('application/json');
      expect(delivery.headers['webhook-id']).toBe(event.id);
      expect(receiver.at('/hooks')).toHaveLength(1); // the order placed before it started is not forwarded
      const forwarded = `order.placed  ${event.id}  order ${orderId}  -> POST ${receiver.url}/hooks [204]`;
      await eventually(
        () => first.out.some((line) => line.includes(forwarded)),
        () => `no line for the forwarded event: ${first.out.join('\n')}`,
      );
      first.stop.abort();
      expect(await first.done).toBe(0);
      expect(JSON.parse(await readFile(stateFile, 'utf8'))).toEqual({ secret, after: event.id });

      // While it is stopped: an update of the first order, then a new order.
      expect(
        (
          await request(app.url)
            .post(`/api/v2/order/${before}/update`)
            .set('Authorization', `Bearer ${partner.token}`)
            .send({ note: 'while stopped' })
        ).status,
      ).toBe(200);
      const whileStopped = await place(orderBody(productId));

      const second = start([...args, '--events', 'order.placed']);
      await ready(second);
      expect(second.out).toContain(`Resuming after ${event.id}, the last event forwarded.`);
      expect(secretOf(second)).toBe(secret);
      await receiver.waitFor((received) => received.length === 2, FEED_WAIT_MS);
      const resumed = constructWebhookEvent(receiver.received[1].body, receiver.received[1].headers, secret);
      expect(resumed).toMatchObject({ type: 'order.placed', data: { order_id: whileStopped } });
      // The update was passed over (--events), and is not forwarded later either.
      await place(orderBody(productId));
      await receiver.waitFor((received) => received.length === 3, FEED_WAIT_MS);
      expect(receiver.received.map((hook) => (JSON.parse(hook.body) as WebhookEvent).type)).toEqual([
        'order.placed',
        'order.placed',
        'order.placed',
      ]);
      second.stop.abort();
      expect(await second.done).toBe(0);
      expect(second.err).toEqual([]);
    },
    FEED_SPEC_MS,
  );

  it(
    'listen sends an event again until a receiver answers: none is skipped while the receiver is down',
    async () => {
      const port = await unusedPort();
      const stateFile = join(scratch, 'listen-late-receiver.json');
      const run = start([
        'listen',
        '--forward-to',
        `http://127.0.0.1:${port}/late`,
        '--state-file',
        stateFile,
      ]);
      await ready(run);
      const orderId = await place(orderBody((await fixtures.product()).id));
      await eventually(
        () => run.err.some((line) => line.includes(`127.0.0.1:${port}/late did not answer (ECONNREFUSED)`)),
        () => `no refusal reported: ${run.err.join('\n')}`,
        FEED_WAIT_MS,
      );
      const late = await startWebhookReceiver(() => 204, port);
      try {
        await late.waitFor((received) => received.length === 1, FEED_WAIT_MS);
        const event = constructWebhookEvent(late.received[0].body, late.received[0].headers, secretOf(run));
        expect(event).toMatchObject({ type: 'order.placed', data: { order_id: orderId } });
      } finally {
        run.stop.abort();
        await late.close();
      }
      expect(await run.done).toBe(0);
    },
    FEED_SPEC_MS,
  );

  it(
    "listen shows a receiver's failure and goes on: an answer of any status counts as forwarded",
    async () => {
      const failing = await startWebhookReceiver(() => 500);
      const stateFile = join(scratch, 'listen-failing-receiver.json');
      const run = start([
        'listen',
        '--forward-to',
        `${failing.url}/fails`,
        '--state-file',
        stateFile,
        '--poll-interval',
        '100',
      ]);
      try {
        await ready(run);
        const productId = (await fixtures.product()).id;
        const [first, second] = [await place(orderBody(productId)), await place(orderBody(productId))];
        await failing.waitFor((received) => received.length === 2, FEED_WAIT_MS);
        const orders = failing.received.map((hook) => orderOf(JSON.parse(hook.body) as WebhookEvent));
        expect(orders).toEqual([first, second]);
        await eventually(
          () => run.out.filter((line) => line.endsWith('ms') && line.includes('[500]')).length === 2,
          () => `no lines for the failures: ${run.out.join('\n')}`,
        );
      } finally {
        run.stop.abort();
        await failing.close();
      }
      expect(await run.done).toBe(0);
    },
    FEED_SPEC_MS,
  );

  it(
    'trigger makes each event type happen on a new TEST order, and the feed has it',
    async () => {
      for (const type of EVENT_TYPES) {
        const run = start(['trigger', type]);
        if (type === 'import.failed') {
          expect(await run.done).toBe(1);
          expect(run.err).toEqual([
            expect.stringMatching(/^restaurant-orders: import\.failed cannot be triggered: /),
          ]);
          continue;
        }
        expect(await run.done).toBe(0);
        expect(run.err).toEqual([]);
        const orderId = Number(/\(order (\d+),/.exec(run.out.join('\n'))?.[1]);
        const importId = Number(/^Imported the TEST order in import (\d+)$/m.exec(run.out.join('\n'))?.[1]);
        expect(run.out.at(-1)).toMatch(new RegExp(`^${type.replace('.', '\\.')} fired for SK-\\d{7}`));
        // The feed lists an event once every older transaction has ended: at once, or a moment later.
        let events: WebhookEvent[] = [];
        await eventually(
          async () => {
            const all = await feed();
            events = all.filter((event) => orderOf(event) === orderId);
            return type === 'import.completed'
              ? all.some(
                  (event) =>
                    event.type === type && !('order_id' in event.data) && event.data.import_id === importId,
                )
              : events.some((event) => event.type === type);
          },
          () => `${type} is not on the feed: ${JSON.stringify(events)}`,
          FEED_WAIT_MS,
        );
        expect(events[0]).toMatchObject({ type: 'order.placed', data: { test: true, state: 'TEST' } });
      }
    },
    FEED_SPEC_MS,
  );

  it('logs tail shows the requests made after it started, one line each, with the API filters, and not its own', async () => {
    const get = (path: string, requestId: string) =>
      request(app.url)
        .get(path)
        .set('Authorization', `Bearer ${partner.token}`)
        .set('X-Request-Id', requestId);
    expect((await get('/api/v2/order/999999', 'before-tail')).status).toBe(404);
    // A request reaches the log when the writer next flushes (REQUEST_LOG_FLUSH_MS): tail starts after that one has.
    await eventually(
      async () =>
        (await app.db.query('SELECT 1 FROM request_log WHERE request_id = $1', ['before-tail'])).rowCount ===
        1,
      () => 'the request before the tail never reached the log',
    );
    const listening = start([
      'listen',
      '--forward-to',
      `${receiver.url}/tail`,
      '--state-file',
      join(scratch, 'tail.json'),
      '--poll-interval',
      '100',
    ]);
    await ready(listening);
    const all = start(['logs', 'tail', '--poll-interval', '100']);
    const failures = start(['logs', 'tail', '--status', '4xx', '--poll-interval', '100']);
    await eventually(
      () => [all, failures].every((run) => run.out.includes('Following your request log. Ctrl-C stops.')),
      () => `logs tail did not start: ${JSON.stringify([all.out, failures.out, all.err, failures.err])}`,
    );
    expect((await get('/api/v2/product', 'after-tail-ok')).status).toBe(200);
    expect((await get('/api/v2/order/999999', 'after-tail-404')).status).toBe(404);
    await eventually(
      () =>
        all.out.some((line) => line.includes('after-tail-404')) &&
        failures.out.some((line) => line.includes('after-tail-404')),
      () => `not shown: ${JSON.stringify([all.out, failures.out])}`,
    );
    const shown = (run: Run) => run.out.slice(1);
    const entry = (status: number, path: string, requestId: string): unknown =>
      expect.stringMatching(
        new RegExp(
          `^\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d  ${status}  GET ${path}  \\d+ ms  ${partner.userName}  ${requestId}`,
        ),
      );
    // The tools' own polls (this tail's, the other tail's, listen's) are left out.
    expect(shown(all)).toEqual([
      entry(200, '/api/v2/product', 'after-tail-ok$'),
      entry(404, '/api/v2/order/999999', 'after-tail-404  Order not found\\.$'),
    ]);
    expect(shown(failures)).toEqual([expect.stringContaining('after-tail-404')]);
    for (const run of [all, failures, listening]) {
      run.stop.abort();
      expect(await run.done).toBe(0);
      expect(run.err).toEqual([]);
    }
  });

  it('import uploads a file, shows its progress, each refused line with its errors and a summary; exit 2 when a line was refused', async () => {
    const productId = (await fixtures.product()).id;
    const file = join(scratch, 'orders.ndjson');
    const good = orderBody(productId);
    await writeFile(
      file,
      `${JSON.stringify(good)}\n${JSON.stringify(orderBody(productId, { email: 'not an address' }))}\n`,
    );
    const run = start(['import', file, '--poll-interval', '100']);
    expect(await run.done).toBe(2);
    expect(run.err).toEqual([]);
    expect(run.out[0]).toMatch(/^Import \d+: (queued|running|completed), \d of 2 lines done/);
    expect(run.out.slice(-2)).toEqual([
      'line 2: email: The email must be a valid email address.',
      '1 placed, 1 refused.',
    ]);
    const importId = Number(/^Import (\d+):/.exec(run.out[0])![1]);
    const placed = await app.db.query('SELECT email FROM orders WHERE company_id = $1 AND email = $2', [
      partner.companyId,
      good.email,
    ]);
    expect(placed.rowCount).toBe(1);
    expect(run.out.join('\n')).toContain(
      `Import ${importId}: completed, 2 of 2 lines done (1 placed, 1 refused)`,
    );
    expect(run.out.join('\n')).not.toContain(partner.token);

    const dry = start(['import', file, '--dry-run', '--poll-interval', '100']);
    expect(await dry.done).toBe(2);
    expect(dry.out.at(-1)).toBe('1 valid, 1 refused.');
    expect((await app.db.query('SELECT 1 FROM orders WHERE email = $1', [good.email])).rowCount).toBe(1);
  });

  it('bad input: exit code 1 and one line on stderr, nothing on stdout', async () => {
    const empty = join(scratch, 'empty.csv');
    await writeFile(empty, '');
    const cases: [string[], Record<string, string>?][] = [
      [['import', join(scratch, 'missing.ndjson')]],
      [['import', join(scratch, 'orders.txt')]],
      [['import', empty, '--format', 'xml']],
      [['import', empty]], // the service refuses an empty file: 400
      [['import']],
      [['trigger', 'import.failed']],
      [['trigger', 'order.shipped']],
      [['trigger']],
      [['listen']],
      [['listen', '--forward-to', 'ftp://localhost/hooks']],
      [['listen', '--forward-to', 'http://localhost:1/hooks', '--events', 'order.placed,nope']],
      [['listen', '--forward-to', 'http://localhost:1/hooks', '--poll-interval', 'soon']],
      [['logs', 'tail', '--status', '6xx']],
      [['launch']],
      [[]],
      [['logs']],
      [['trigger', 'order.placed', 'order.updated']],
      [
        ['trigger', 'order.placed'],
        { RESTAURANT_ORDERS_TOKEN: partner.token, RESTAURANT_ORDERS_URL: 'localhost:3000' },
      ],
      [['trigger', 'order.placed'], {}], // no token
      [['trigger', 'order.placed'], { RESTAURANT_ORDERS_TOKEN: 'not-a-token' }], // a token the service refuses
      [['trigger', 'order.placed', '--product', '999999']],
    ];
    for (const [args, env] of cases) {
      const run = start(args, env);
      expect({ args, code: await run.done, out: run.out, lines: run.err.length }).toEqual({
        args,
        code: 1,
        out: [],
        lines: 1,
      });
      expect(run.err[0]).toMatch(/^restaurant-orders: \S/);
    }
    const unknown = runs.at(-1)!;
    expect(unknown.err[0]).toBe(
      'restaurant-orders: Product 999999 is not an active product: leave --product out to use the first one.',
    );
    expect(runs.at(-2)!.err[0]).toMatch(
      /401 Unauthenticated\.: RESTAURANT_ORDERS_TOKEN is not a valid partner token/,
    );
  });

  it("listen names its state file when the feed does not know the state's last event", async () => {
    const stateFile = join(scratch, 'listen-foreign.json');
    await writeFile(
      stateFile,
      JSON.stringify({ secret: `whsec_${'A'.repeat(43)}=`, after: 'evt_999999999' }),
    );
    const run = start(['listen', '--forward-to', `${receiver.url}/foreign`, '--state-file', stateFile]);
    expect(await run.done).toBe(1);
    expect(run.err).toEqual([
      `restaurant-orders: The last forwarded event, evt_999999999, is not in your feed: delete ${stateFile} to start at its end.`,
    ]);
  });

  it('every command has --help', async () => {
    for (const args of [
      ['--help'],
      ['listen', '--help'],
      ['trigger', '--help'],
      ['logs', 'tail', '--help'],
      ['import', '--help'],
    ]) {
      const run = start(args);
      expect(await run.done).toBe(0);
      expect(run.out.join('\n')).toMatch(/^Usage: restaurant-orders /);
    }
    const triggerHelp = start(['trigger', '--help']);
    expect(await triggerHelp.done).toBe(0);
    expect(triggerHelp.out.join('\n')).toMatch(
      /^import\.failed cannot be triggered: an import fails only when /m,
    );
  });
});
