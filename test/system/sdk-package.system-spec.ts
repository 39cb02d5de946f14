import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { issueAdminToken, startApp, type TestApp } from '../harness/app';
import { Fixtures } from '../harness/factories';
import { jsonLines, runNode } from '../harness/run-node';
import { copySdkFolder, PARTNER_COMPILER_OPTIONS, SDK } from '../harness/sdk-package';

/**
 * The SDK package as a partner gets it (CONTRACT §8), a system concern: npm, tsc and the programs run as
 * processes. A copy of clients/typescript alone (nothing of the repository around it) installs its development
 * dependencies and packs; the tarball holds every example its README names; installed into a new project, it
 * compiles under `strict` without skipLibCheck for `module: node16` in a CommonJS package, `nodenext` in an ES
 * module package and `bundler`: the shipped examples and the README's TypeScript blocks as ES modules, a program
 * of its own as CommonJS. The CommonJS program, the compiled orders example and the JavaScript example then run
 * against the service, built in this process.
 */

const ROOT = join(__dirname, '..', '..');
const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
const SETUP_TIMEOUT_MS = 420_000;

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

/** A CommonJS program: every name the ES module programs use, by `require`, inside an async function. */
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
  // Following the feed until the placement's event is listed (at most 30 s).
  const stop = new AbortController();
  const timer = setTimeout(() => stop.abort(), 30_000);
  for await (const event of client.events({ follow: true, pollIntervalMs: 200, signal: stop.signal })) {
    print({ event: event.type });
    if (event.type === 'order.placed') stop.abort();
  }
  clearTimeout(timer);
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

describe('the SDK package, packed from a copy of its folder and installed into new projects', () => {
  let scratch: string;
  let tarball: string;
  let project: string;
  let readme: string;
  let app: TestApp;
  let fixtures: Fixtures;

  /** Compiles a project folder with a tsconfig of these options; tsc's output when it fails. */
  async function compile(folder: string, options: Record<string, unknown>, include: string[]) {
    await writeFile(
      join(folder, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { ...PARTNER_COMPILER_OPTIONS, ...options }, include }),
    );
    return exec(process.execPath, [TSC, '-p', 'tsconfig.json'], { cwd: folder }).then(
      () => '',
      (error: { stdout: string }) => error.stdout,
    );
  }

  beforeAll(async () => {
    scratch = await mkdtemp(join(tmpdir(), 'sdk-package-'));
    readme = await readFile(join(SDK, 'README.md'), 'utf8');
    const copy = join(scratch, 'sdk');
    await copySdkFolder(copy);
    const [, started] = await Promise.all([
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
      startApp({ env: { SERVICE_ROLE: 'api', RATE_LIMIT_PER_MINUTE: '100000' } }),
    ]);
    app = started;
    fixtures = new Fixtures(app.url, await issueAdminToken(app));
    await fixtures.product();
  }, SETUP_TIMEOUT_MS);

  afterAll(async () => {
    await app?.stop();
    if (scratch) await rm(scratch, { recursive: true, force: true });
  });

  it('holds every example its README names, the built code of both module systems and the document', async () => {
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
        'openapi.json',
        'README.md',
      ]),
    );
    expect(files.filter((file) => file.startsWith('src/') || file.endsWith('tsconfig.json'))).toEqual([]);
  });

  it('compiles as ES modules under nodenext and bundler: the examples it ships and the blocks of its README', async () => {
    const esm = join(project, 'esm');
    await mkdir(esm);
    await writeFile(join(esm, 'package.json'), JSON.stringify({ type: 'module' }));
    await cp(join(project, 'node_modules', '@restaurant-orders', 'sdk', 'examples'), esm, {
      recursive: true,
    });
    const blocks = typescriptBlocks(readme);
    expect(blocks.length).toBeGreaterThanOrEqual(5);
    await Promise.all(blocks.map((code, n) => writeFile(join(esm, `readme-${n + 1}.ts`), code)));
    expect(
      await compile(esm, { module: 'nodenext', moduleResolution: 'nodenext', outDir: 'out' }, ['*.ts']),
    ).toBe('');
    expect(
      await compile(esm, { module: 'esnext', moduleResolution: 'bundler', noEmit: true }, ['*.ts']),
    ).toBe('');

    // A company of its own: the example counts what it placed among the company's orders and events.
    const partner = await fixtures.partner();
    const env = { RESTAURANT_ORDERS_URL: app.url, RESTAURANT_ORDERS_TOKEN: partner.token };
    const orders = await runNode(join(esm, 'out', 'orders.js'), [], env);
    expect({ code: orders.code, stderr: orders.stderr }).toEqual({ code: 0, stderr: '' });
    const lines = jsonLines(orders.stdout);
    expect(lines).toEqual(
      expect.arrayContaining([
        { placed: expect.stringMatching(/^SK-\d{7}$/) },
        { listed: 1 },
        expect.objectContaining({ status: 404, request_id: expect.stringMatching(/\S/) }),
      ]),
    );
    // The JavaScript example, run where npm installed it.
    const products = await runNode(
      join(project, 'node_modules', '@restaurant-orders', 'sdk', 'examples', 'list-products.mjs'),
      [],
      env,
    );
    expect({ code: products.code, stderr: products.stderr }).toEqual({ code: 0, stderr: '' });
    expect(jsonLines(products.stdout)).toContainEqual({
      status: 404,
      request_id: expect.stringMatching(/\S/),
    });
  }, 180_000);

  it('compiles and runs as CommonJS under module node16 (its require build and declarations)', async () => {
    const commonjs = join(project, 'cjs');
    await mkdir(commonjs);
    await writeFile(join(commonjs, 'package.json'), JSON.stringify({ type: 'commonjs' }));
    await writeFile(join(commonjs, 'main.ts'), COMMONJS_PROGRAM);
    expect(
      await compile(commonjs, { module: 'node16', moduleResolution: 'node16', outDir: 'out' }, ['main.ts']),
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
    expect(lines).toContainEqual({ event: 'order.placed' });
    expect(lines).toContainEqual({ kind: 'response', status: 404 });
  }, 120_000);
});
