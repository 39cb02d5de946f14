import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Webhook } from 'standardwebhooks';
import request from 'supertest';
import { issueAdminToken, startApp, type TestApp } from '../harness/app';
import { eventually } from '../harness/eventually';
import { Fixtures } from '../harness/factories';
import { jsonLines, runNode, runProcess } from '../harness/run-node';
import { copySdkFolder, PARTNER_COMPILER_OPTIONS, SDK } from '../harness/sdk-package';
import {
  FAST_DISPATCH,
  type ReceivedWebhook,
  startWebhookReceiver,
  type WebhookReceiver,
} from '../harness/webhook-receiver';

/**
 * The SDK as a partner gets it (CONTRACT §8), a system concern: npm, tsc and the programs run as processes. A
 * copy of clients/typescript alone (nothing of the repository around it) installs its development dependencies
 * and packs; the tarball holds every example its README names; installed into a new project, it compiles under
 * `strict` without skipLibCheck: the shipped examples and the README's TypeScript blocks as ES modules for
 * `nodenext` and `bundler`, a program of its own as CommonJS for `module: node16`. Then against the service
 * (built in this process): the examples compiled for each variant (every page of a list, retries on real 429s
 * with one order per placement, the error type, the webhook verifier on real deliveries), the JavaScript
 * example where npm installed it, and the CommonJS program.
 */

const ROOT = join(__dirname, '..', '..');
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
/** npm with only what a partner's shell has: no variable of this repository's test run. */
const npm = (args: string[], cwd: string) =>
  exec('npm', args, { cwd, env: { PATH: process.env.PATH, HOME: process.env.HOME }, maxBuffer: 16 << 20 });
const OFFLINE_FIRST = ['--prefer-offline', '--no-audit', '--no-fund'];

/** The ```ts blocks of a Markdown text. */
const typescriptBlocks = (markdown: string) =>
  [...markdown.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map(([, code]) => code);

/** The example files a Markdown text names (`examples/orders.ts`), once each. */
const examplesNamed = (markdown: string) => [...new Set(markdown.match(/examples\/[\w.-]+\.\w+/g))];

/** A CommonJS program: the package by `require` (TypeScript compiles its import to one), in an async function. */
const COMMONJS_PROGRAM = `
import { createRestaurantOrdersClient, RestaurantOrdersError, unwrap, USER_AGENT } from '@restaurant-orders/sdk';

const print = (line: object) => process.stdout.write(\`\${JSON.stringify(line)}\\n\`);

async function main(): Promise<void> {
  print({ resolved: require.resolve('@restaurant-orders/sdk'), user_agent: USER_AGENT });
  const client = createRestaurantOrdersClient(process.env.RESTAURANT_ORDERS_URL!, process.env.RESTAURANT_ORDERS_TOKEN!);
  const [product] = (await unwrap(client.listProducts())).data;
  const placed = await unwrap(
    client.placeOrder({
      body: {
        first_name: 'Jana', last_name: 'Nováková', consignee: 'Bistro Group', email: 'jana@example.com',
        phone: '+421900123456', zip: '81101', city: 'Bratislava', street: 'Obchodná', house_number: '12',
        product_id: product.id, login: 'bistro-12', password: 'device-secret', order_type: 'REGULAR',
        merchant_id: 'M-4411',
      },
    }),
  );
  print({ placed: placed.orders[0].order_id });
  try {
    await unwrap(client.getOrder({ params: { path: { id: 2_000_000_000 } } }));
  } catch (error) {
    if (!(error instanceof RestaurantOrdersError)) throw error;
    print({ kind: error.kind, status: error.status });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
`;

describe('the SDK package, packed from a copy of its folder and installed into a new project (CONTRACT §8)', () => {
  let scratch: string;
  let tarball: string;
  let project: string;
  let readme: string;
  let app: TestApp;
  let receiver: WebhookReceiver;
  let admin: string;
  let fixtures: Fixtures;
  const examples: ChildProcess[] = [];

  /** Writes a tsconfig of these options in a folder and compiles it: tsc's output when it fails, else ''. */
  async function compile(
    folder: string,
    config: string,
    options: Record<string, unknown>,
    include: string[],
  ) {
    await writeFile(
      join(folder, config),
      JSON.stringify({ compilerOptions: { ...PARTNER_COMPILER_OPTIONS, ...options }, include }),
    );
    return exec(process.execPath, [TSC, '-p', config], { cwd: folder }).then(
      () => '',
      (error: { stdout: string }) => error.stdout,
    );
  }

  // Minutes on a busy machine: the copy installs TypeScript, packing builds twice (ES modules, CommonJS).
  beforeAll(async () => {
    scratch = await mkdtemp(join(tmpdir(), 'sdk-package-'));
    readme = await readFile(join(SDK, 'README.md'), 'utf8');
    const copy = join(scratch, 'sdk');
    await copySdkFolder(copy);
    [, app, receiver] = await Promise.all([
      (async () => {
        await npm(['ci', ...OFFLINE_FIRST], copy);
        await npm(['pack', '--silent', '--pack-destination', scratch], copy);
        tarball = join(
          scratch,
          (await readdir(scratch)).find((file) => file.endsWith('.tgz')) ?? 'no tarball',
        );
        project = join(scratch, 'partner');
        await mkdir(project);
        await writeFile(join(project, 'package.json'), JSON.stringify({ private: true }));
        await npm(['install', ...OFFLINE_FIRST, '--ignore-scripts', tarball], project);
      })(),
      startApp({ env: { ...FAST_DISPATCH, RATE_LIMIT_PER_MINUTE: String(RATE_LIMIT_PER_MINUTE) } }),
      startWebhookReceiver(),
    ]);
    admin = await issueAdminToken(app);
    fixtures = new Fixtures(app.url, admin);
    await fixtures.product();
  }, 420_000);

  afterAll(async () => {
    for (const example of examples) example.kill();
    await Promise.all([app?.stop(), receiver?.close()]);
    if (scratch) await rm(scratch, { recursive: true, force: true });
  });

  it('holds every example its README names, the code of both module systems and the document', async () => {
    const { stdout } = await exec('tar', ['-tzf', tarball]);
    const files = stdout.split('\n').map((file) => file.replace(/^package\//, ''));
    const named = examplesNamed(readme);
    expect(named).toEqual(
      expect.arrayContaining(['examples/orders.ts', 'examples/webhooks.ts', 'examples/list-products.mjs']),
    );
    expect(files).toEqual(
      expect.arrayContaining([
        ...named,
        'dist/esm/index.js',
        'dist/esm/index.d.ts',
        'dist/cjs/index.js',
        'dist/cjs/index.d.ts',
        'dist/esm/cli/main.js',
        'openapi.json',
        'README.md',
      ]),
    );
    expect(files.filter((file) => file.startsWith('src/') || file.endsWith('tsconfig.json'))).toEqual([]);
  });

  describe('as ES modules: the examples it ships and the blocks of its README', () => {
    let esm: string;

    beforeAll(async () => {
      esm = join(project, 'esm');
      await mkdir(esm);
      await writeFile(join(esm, 'package.json'), JSON.stringify({ type: 'module' }));
      await cp(join(project, 'node_modules', '@restaurant-orders', 'sdk', 'examples'), join(esm, 'src'), {
        recursive: true,
      });
      const blocks = typescriptBlocks(readme);
      expect(blocks.length).toBeGreaterThanOrEqual(5);
      await Promise.all(blocks.map((code, n) => writeFile(join(esm, 'src', `readme-${n + 1}.ts`), code)));
    });

    it('compiles under nodenext and bundler', async () => {
      const outputs = await Promise.all(
        Object.entries(VARIANTS).map(([variant, resolution]) =>
          compile(
            esm,
            `tsconfig.${variant}.json`,
            { ...resolution, rootDir: 'src', outDir: `out/${variant}` },
            ['src/*.ts'],
          ),
        ),
      );
      expect(outputs).toEqual(['', '']);
    }, 240_000);

    /** Starts the webhook example of a variant on a free port; resolves with its URL and what it printed. */
    async function startWebhookExample(variant: Variant, secret: string) {
      const example = spawn(process.execPath, [join(esm, 'out', variant, 'webhooks.js')], {
        env: { PATH: process.env.PATH, WEBHOOK_SECRET: secret, PORT: '0' },
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      examples.push(example);
      let printed = '';
      example.stdout.on('data', (chunk: Buffer) => (printed += chunk.toString()));
      await eventually(
        () => jsonLines(printed).some((line) => line.listening),
        () => `The ${variant} webhook example did not start: ${printed}`,
      );
      return {
        url: `http://127.0.0.1:${jsonLines(printed)[0].listening as number}/`,
        lines: () => jsonLines(printed),
      };
    }

    /** Registers a webhook endpoint of the company as an admin would. */
    async function register(companyId: number, url: string, secret: string): Promise<void> {
      await request(app.url)
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

      const run = await runNode(join(esm, 'out', variant, 'orders.js'), [], {
        RESTAURANT_ORDERS_URL: app.url,
        RESTAURANT_ORDERS_TOKEN: partner.token,
        PLACEMENTS: String(PLACEMENTS),
      });
      expect({ variant, code: run.code, stderr: run.stderr }).toEqual({ variant, code: 0, stderr: '' });
      const lines = jsonLines(run.stdout);

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
      const orders = await app.db.query('SELECT count(*)::int AS count FROM orders WHERE company_id = $1', [
        partner.companyId,
      ]);
      expect(orders.rows[0].count).toBe(PLACEMENTS);
      const keys = await app.db.query('SELECT key FROM idempotency_keys WHERE company_id = $1', [
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

    it('runs the examples of each variant against the service: pages, retries, errors, webhooks', async () => {
      await Promise.all(Object.keys(VARIANTS).map((variant) => exercise(variant as Variant)));
    }, 150_000);
  });

  it('runs its JavaScript example where npm installed it', async () => {
    const partner = await fixtures.partner();
    const run = await runNode(
      join(project, 'node_modules', '@restaurant-orders', 'sdk', 'examples', 'list-products.mjs'),
      [],
      { RESTAURANT_ORDERS_URL: app.url, RESTAURANT_ORDERS_TOKEN: partner.token },
    );
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
    const lines = jsonLines(run.stdout);
    expect(lines.filter((line) => line.product).length).toBeGreaterThan(0);
    expect(lines).toContainEqual({ status: 404, request_id: expect.stringMatching(/\S/) });
  });

  it('runs its command-line tool with npx restaurant-orders: --help, bad input, trigger, listen stopped by Ctrl-C', async () => {
    const partner = await fixtures.partner();
    const env = { HOME: scratch, RESTAURANT_ORDERS_URL: app.url, RESTAURANT_ORDERS_TOKEN: partner.token };
    // npm's own notices (a newer npm) off: stderr is the tool's alone.
    const npx = (args: string[]) =>
      runProcess(
        'npx',
        ['--no-install', 'restaurant-orders', ...args],
        { ...env, npm_config_update_notifier: 'false' },
        project,
      );

    const help = await npx(['--help']);
    expect({ code: help.code, stderr: help.stderr }).toEqual({ code: 0, stderr: '' });
    expect(help.stdout).toMatch(/^Usage: restaurant-orders .*\n[\s\S]*listen [\s\S]*trigger [\s\S]*logs/);
    const bad = await npx(['trigger', 'order.shipped']);
    expect({ code: bad.code, stdout: bad.stdout }).toEqual({ code: 1, stdout: '' });
    expect(bad.stderr).toMatch(/^restaurant-orders: .*Unknown event type "order\.shipped".*\n$/);

    const trigger = await npx(['trigger', 'order.placed']);
    expect({ code: trigger.code, stderr: trigger.stderr }).toEqual({ code: 0, stderr: '' });
    const orderId = Number(/\(order (\d+),/.exec(trigger.stdout)?.[1]);
    const { rows } = await app.db.query('SELECT company_id, test FROM orders WHERE id = $1', [orderId]);
    expect(rows).toEqual([{ company_id: partner.companyId, test: true }]);

    // The installed bin itself (npx's shell would stand between the signal and the tool).
    const listen = spawn(
      join(project, 'node_modules', '.bin', 'restaurant-orders'),
      ['listen', '--forward-to', `${receiver.url}/cli`],
      { cwd: project, env: { PATH: process.env.PATH, ...env }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    examples.push(listen);
    let printed = '';
    listen.stdout.on('data', (chunk: Buffer) => (printed += chunk.toString()));
    listen.stderr.on('data', (chunk: Buffer) => (printed += chunk.toString()));
    await eventually(
      () => printed.includes('Ready.'),
      () => `listen did not start: ${printed}`,
    );
    listen.kill('SIGINT');
    const [code] = (await once(listen, 'exit')) as [number | null];
    expect(code).toBe(0);
    expect(printed).toMatch(/Webhook signing secret: whsec_/);
    expect(`${help.stdout}${bad.stderr}${trigger.stdout}${printed}`).not.toContain(partner.token);
  }, 60_000);

  it('compiles and runs as CommonJS under module node16: its require build and declarations', async () => {
    const commonjs = join(project, 'cjs');
    await mkdir(commonjs);
    await writeFile(join(commonjs, 'package.json'), JSON.stringify({ type: 'commonjs' }));
    await writeFile(join(commonjs, 'main.ts'), COMMONJS_PROGRAM);
    expect(
      await compile(
        commonjs,
        'tsconfig.json',
        { module: 'node16', moduleResolution: 'node16', outDir: 'out' },
        ['main.ts'],
      ),
    ).toBe('');
    const partner = await fixtures.partner();
    const run = await runNode(join(commonjs, 'out', 'main.js'), [], {
      RESTAURANT_ORDERS_URL: app.url,
      RESTAURANT_ORDERS_TOKEN: partner.token,
    });
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
    const lines = jsonLines(run.stdout);
    const version = (JSON.parse(await readFile(join(SDK, 'package.json'), 'utf8')) as { version: string })
      .version;
    expect(lines[0]).toEqual({
      resolved: join(project, 'node_modules', '@restaurant-orders', 'sdk', 'dist', 'cjs', 'index.js'),
      user_agent: `restaurant-orders-sdk/${version}`,
    });
    const placed = Number(lines.find((line) => line.placed)?.placed);
    const { rows } = await app.db.query('SELECT company_id FROM orders WHERE id = $1', [placed]);
    expect(rows).toEqual([{ company_id: partner.companyId }]);
    expect(lines).toContainEqual({ kind: 'response', status: 404 });
  }, 120_000);
});
