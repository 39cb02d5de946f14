import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { cp, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Webhook } from 'standardwebhooks';
import request from 'supertest';
import { issueAdminToken } from '../harness/cli';
import { eventually } from '../harness/eventually';
import { Fixtures } from '../harness/factories';
import { runNode } from '../harness/run-node';
import { type RunningService, startService } from '../harness/service';
import {
  FAST_DISPATCH,
  type ReceivedWebhook,
  startWebhookReceiver,
  type WebhookReceiver,
} from '../harness/webhook-receiver';

/**
 * The SDK as a partner gets it (CONTRACT §8): `npm pack` of clients/typescript, installed from the tarball
 * into a fresh project, the package's examples compiled there under `strict` for `moduleResolution`
 * `nodenext` and `bundler`, then run against the service: every page of a list, retries on real 429s (the
 * partner budget is 4 requests a minute) with one order per placement, the error type, and the webhook
 * verifier on real deliveries. A plain-JavaScript program imports the package too.
 */

const ROOT = join(__dirname, '..', '..');
const SDK = join(ROOT, 'clients', 'typescript');
const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
const RATE_LIMIT_PER_MINUTE = 4;
/** One more than the budget left after the product list: the last placement meets a 429 and is retried. */
const PLACEMENTS = RATE_LIMIT_PER_MINUTE;

const VARIANTS = {
  nodenext: { module: 'nodenext', moduleResolution: 'nodenext' },
  bundler: { module: 'esnext', moduleResolution: 'bundler' },
} as const;
type Variant = keyof typeof VARIANTS;

const exec = promisify(execFile);

/** Packs the SDK, installs the tarball in a new project and compiles the examples there for each variant. */
async function installPackedSdk(): Promise<string> {
  const project = await mkdtemp(join(tmpdir(), 'sdk-partner-'));
  await exec('npm', ['pack', '--silent', '--pack-destination', project], { cwd: SDK });
  const tarball = (await readdir(project)).find((file) => file.endsWith('.tgz'));
  if (!tarball) throw new Error('npm pack wrote no tarball');
  await cp(join(SDK, 'examples'), join(project, 'src'), { recursive: true });
  await rm(join(project, 'src', 'tsconfig.json'));
  await writeFile(join(project, 'package.json'), JSON.stringify({ private: true, type: 'module' }));
  await exec(
    'npm',
    ['install', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts', `./${tarball}`],
    { cwd: project },
  );
  await Promise.all(
    Object.entries(VARIANTS).map(async ([variant, resolution]) => {
      const config = {
        compilerOptions: {
          ...resolution,
          target: 'ES2022',
          lib: ['ES2022'],
          types: ['node'],
          typeRoots: [join(ROOT, 'node_modules', '@types')],
          strict: true,
          skipLibCheck: false,
          rootDir: 'src',
          outDir: `out/${variant}`,
        },
        include: ['src/*.ts'],
      };
      await writeFile(join(project, `tsconfig.${variant}.json`), JSON.stringify(config));
      await exec(process.execPath, [TSC, '-p', `tsconfig.${variant}.json`], { cwd: project });
    }),
  );
  return project;
}

/** The JSON lines a program printed. */
const linesOf = (output: string): Record<string, unknown>[] =>
  output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);

describe('the SDK package, installed from its tarball (CONTRACT §8)', () => {
  let service: RunningService;
  let receiver: WebhookReceiver;
  let admin: string;
  let fixtures: Fixtures;
  let project: string;
  const examples: ChildProcess[] = [];

  beforeAll(async () => {
    [service, receiver, project] = await Promise.all([
      startService({ env: { ...FAST_DISPATCH, RATE_LIMIT_PER_MINUTE: String(RATE_LIMIT_PER_MINUTE) } }),
      startWebhookReceiver(),
      installPackedSdk(),
    ]);
    admin = await issueAdminToken(service.databaseUrl!);
    fixtures = new Fixtures(service.url, admin);
    await fixtures.product();
  }, 120_000);

  afterAll(async () => {
    for (const example of examples) example.kill();
    await Promise.all([service?.stop(), receiver?.close()]);
    if (project) await rm(project, { recursive: true, force: true });
  });

  /** Starts the webhook example of a variant on a free port; resolves with its URL and what it printed. */
  async function startWebhookExample(variant: Variant, secret: string) {
    const example = spawn(process.execPath, [join(project, 'out', variant, 'webhooks.js')], {
      env: { PATH: process.env.PATH, WEBHOOK_SECRET: secret, PORT: '0' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    examples.push(example);
    let printed = '';
    example.stdout.on('data', (chunk: Buffer) => (printed += chunk.toString()));
    await eventually(
      () => linesOf(printed).some((line) => line.listening),
      () => `The ${variant} webhook example did not start: ${printed}`,
    );
    return {
      url: `http://127.0.0.1:${linesOf(printed)[0].listening as number}/`,
      lines: () => linesOf(printed),
    };
  }

  /** Registers a webhook endpoint of the company as an admin would. */
  async function register(companyId: number, url: string, secret: string): Promise<void> {
    await request(service.url)
      .post('/api/v2/admin/webhooks')
      .set('Authorization', `Bearer ${admin}`)
      .send({ company_id: companyId, url, secret })
      .expect(201);
  }

  const secretOf = (fill: number) => `whsec_${Buffer.alloc(32, fill).toString('base64')}`;

  /** Sends a delivery as it was received (or altered) to a receiver: its status. */
  const forward = async (
    url: string,
    webhook: ReceivedWebhook,
    headers: Record<string, string>,
    body: string,
  ) =>
    (
      await fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'webhook-id': String(webhook.headers['webhook-id']),
          'webhook-timestamp': String(webhook.headers['webhook-timestamp']),
          'webhook-signature': String(webhook.headers['webhook-signature']),
          ...headers,
        },
        body,
      })
    ).status;

  /**
   * One variant end to end: the orders example on a partner token of its own company (4 requests a minute),
   * the webhook example receiving that company's deliveries, then forged deliveries sent to it.
   */
  async function exercise(variant: Variant) {
    const partner = await fixtures.partner();
    const secret = secretOf(variant === 'nodenext' ? 1 : 2);
    const webhooks = await startWebhookExample(variant, secret);
    await register(partner.companyId, webhooks.url, secret);
    // The same deliveries, captured raw: signed with the example's secret, and with another one.
    await register(partner.companyId, `${receiver.url}/${variant}/same`, secret);
    await register(partner.companyId, `${receiver.url}/${variant}/other`, secretOf(9));

    const run = await runNode(join(project, 'out', variant, 'orders.js'), [], {
      RESTAURANT_ORDERS_URL: service.url,
      RESTAURANT_ORDERS_TOKEN: partner.token,
      PLACEMENTS: String(PLACEMENTS),
    });
    expect({ variant, code: run.code, stderr: run.stderr }).toEqual({ variant, code: 0, stderr: '' });
    const lines = linesOf(run.stdout);

    // Every placement is one order, and the one sent again after the 429 kept its key.
    const placed = lines.filter((line) => line.placed);
    expect(placed).toHaveLength(PLACEMENTS);
    const retries = lines.filter((line) => line.retry);
    expect(retries.length).toBeGreaterThan(0);
    for (const retry of retries) {
      expect(retry.retry).toBe(429);
      expect(retry.wait_ms).toBeGreaterThan(0);
    }
    const retriedPlacement = retries.find((retry) => typeof retry.idempotency_key === 'string');
    expect(retriedPlacement).toBeDefined();
    const orders = await service.db.query('SELECT count(*)::int AS count FROM orders WHERE company_id = $1', [
      partner.companyId,
    ]);
    expect(orders.rows[0].count).toBe(PLACEMENTS);
    const keys = await service.db.query('SELECT key FROM idempotency_keys WHERE company_id = $1', [
      partner.companyId,
    ]);
    expect(keys.rows.map((row) => row.key as string)).toHaveLength(PLACEMENTS);
    expect(keys.rows.map((row) => row.key as string)).toContain(retriedPlacement?.idempotency_key);

    // Every page of the list, and the error type.
    expect(lines).toContainEqual({ listed: PLACEMENTS });
    const failure = lines.find((line) => line.status);
    expect(failure).toMatchObject({
      status: 404,
      message: '404 Order not found.',
      body: { message: 'Order not found.' },
    });
    expect(failure?.request_id).toEqual(expect.stringMatching(/\S/));

    // The verifier: the real deliveries come through as typed events...
    await eventually(
      () => webhooks.lines().filter((line) => line.type === 'order.placed').length === PLACEMENTS,
      () => `The ${variant} webhook example printed: ${JSON.stringify(webhooks.lines())}`,
    );
    expect(
      webhooks
        .lines()
        .filter((line) => line.type === 'order.placed')
        .map((line) => line.order_ref),
    ).toEqual(expect.arrayContaining(placed.map((line) => line.placed)));
    await receiver.waitFor(
      () => receiver.at(`/${variant}/same`).length > 0 && receiver.at(`/${variant}/other`).length > 0,
    );
    // ... and a tampered body, another endpoint's secret and an old (replayed) timestamp are refused.
    const [delivery] = receiver.at(`/${variant}/same`);
    const tampered = delivery.body.replace(
      /"order_id":(\d+)/,
      (_, id: string) => `"order_id":${Number(id) + 1}`,
    );
    expect(tampered).not.toBe(delivery.body);
    expect(await forward(webhooks.url, delivery, {}, tampered)).toBe(400);
    const [foreign] = receiver.at(`/${variant}/other`);
    expect(await forward(webhooks.url, foreign, {}, foreign.body)).toBe(400);
    const tenMinutesAgo = new Date(Date.now() - 10 * 60_000);
    const replayed = {
      'webhook-timestamp': String(Math.floor(tenMinutesAgo.getTime() / 1000)),
      'webhook-signature': new Webhook(secret).sign(
        String(delivery.headers['webhook-id']),
        tenMinutesAgo,
        delivery.body,
      ),
    };
    expect(await forward(webhooks.url, delivery, replayed, delivery.body)).toBe(400);
    expect(webhooks.lines().filter((line) => line.refused)).toEqual([
      { refused: 'No matching signature found' },
      { refused: 'No matching signature found' },
      { refused: 'Message timestamp too old' },
    ]);
  }

  it('runs the examples compiled under nodenext and bundler against the service: pages, retries, errors, webhooks', async () => {
    await Promise.all(Object.keys(VARIANTS).map((variant) => exercise(variant as Variant)));
  }, 150_000);

  it('works from plain JavaScript', async () => {
    const partner = await fixtures.partner();
    await cp(join(SDK, 'examples', 'list-products.mjs'), join(project, 'list-products.mjs'));
    const run = await runNode(join(project, 'list-products.mjs'), [], {
      RESTAURANT_ORDERS_URL: service.url,
      RESTAURANT_ORDERS_TOKEN: partner.token,
    });
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
    const lines = linesOf(run.stdout);
    expect(lines.filter((line) => line.product).length).toBeGreaterThan(0);
    expect(lines).toContainEqual({ status: 404, request_id: expect.stringMatching(/\S/) });
  });
});
