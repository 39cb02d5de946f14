import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { chmodSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmbeddedPostgres } from '../src/platform/database/embedded-postgres';
import { runCli } from '../test/harness/cli';

const MAIN = join(__dirname, '..', 'dist', 'main.js');
const START_TIMEOUT_MS = 60_000;
/** A budget the workload never reaches: the soak measures the service, not its rate limiter. */
const UNREACHED_RATE_LIMIT = '100000000';

/** The service a soak runs against, and what the workload needs from it. */
export interface SoakTarget {
  url: string;
  partnerToken: string;
  productId: number;
  variationId: number | undefined;
  /** The server's process id, when the soak started it (for its RSS). */
  pid: number | undefined;
  stop(): Promise<void>;
}

async function call<T>(url: string, token: string, method: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(url + path, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!response.ok)
    throw new Error(`${method} ${path} answered ${response.status}: ${await response.text()}`);
  return (await response.json()) as T;
}

type Product = { id: number; variations: { id: number }[] };

/** A running instance: its first orderable product serves the placements; nothing else is created. */
export async function attach(url: string, partnerToken: string, pid?: number): Promise<SoakTarget> {
  const page = await call<{ data: Product[] }>(url, partnerToken, 'GET', '/api/v2/product?per_page=1');
  const product = page.data[0];
  if (!product) throw new Error(`${url} has no active product to place orders for.`);
  return {
    url,
    partnerToken,
    productId: product.id,
    variationId: product.variations[0]?.id,
    pid,
    stop: () => Promise.resolve(),
  };
}

function waitForPort(child: ChildProcess, errors: () => string): Promise<number> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`The service did not start:\n${errors()}`)),
      START_TIMEOUT_MS,
    );
    let pending = '';
    const onData = (chunk: Buffer) => {
      pending += chunk.toString();
      const line = pending.split('\n').find((candidate) => candidate.includes('"event":"listening"'));
      if (!line) return;
      clearTimeout(timer);
      child.stdout!.off('data', onData);
      child.stdout!.resume();
      resolve((JSON.parse(line) as { port: number }).port);
    };
    child.stdout!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`The service exited with ${code}:\n${errors()}`)));
  });
}

/**
 * Starts the compiled service (`dist/main.js`) on DATABASE_URL, or on an embedded PostgreSQL in a temporary
 * folder, with a rate limit the workload cannot reach (and `extraEnv`); then creates a company, a partner token and a product
 * the way an operator would: an admin token from the CLI, the rest through the admin API.
 */
export async function startOwn(extraEnv: Record<string, string> = {}): Promise<SoakTarget> {
  const embedded = process.env.DATABASE_URL
    ? undefined
    : await startEmbeddedPostgres({ dir: temporaryDir(), database: 'soak', ephemeral: true });
  const databaseUrl = process.env.DATABASE_URL ?? embedded!.url;
  const env = {
    DATABASE_URL: databaseUrl,
    DEVICE_CREDENTIALS_KEY: process.env.DEVICE_CREDENTIALS_KEY ?? randomBytes(32).toString('hex'),
  };
  const child = spawn(process.execPath, [MAIN], {
    env: {
      PATH: process.env.PATH,
      ...env,
      PORT: '0',
      METRICS_PORT: process.env.METRICS_PORT ?? '0',
      LOG_LEVEL: 'info',
      RATE_LIMIT_PER_MINUTE: UNREACHED_RATE_LIMIT,
      ADMIN_RATE_LIMIT_PER_MINUTE: UNREACHED_RATE_LIMIT,
      ...extraEnv,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let errors = '';
  child.stderr.on('data', (chunk: Buffer) => (errors = (errors + chunk.toString()).slice(-4000)));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await once(child, 'exit');
    }
    await embedded?.stop();
  };
  try {
    const url = `http://127.0.0.1:${await waitForPort(child, () => errors)}`;
    const admin = await runCli(
      databaseUrl,
      ['tokens:create', '--role', 'admin', '--user-name', 'soak-admin'],
      env,
    );
    if (admin.code !== 0) throw new Error(`tokens:create failed: ${admin.stderr}`);
    const adminToken = String(admin.json?.token);
    const company = await call<{ id: number }>(url, adminToken, 'POST', '/api/v2/admin/companies', {
      name: 'Soak Bistro',
      site: 'SK',
    });
    const partner = await call<{ token: string }>(url, adminToken, 'POST', '/api/v2/admin/tokens', {
      role: 'partner',
      user_name: 'soak-partner',
      company_id: company.id,
    });
    const product = await call<Product>(url, adminToken, 'POST', '/api/v2/admin/products', {
      name: 'Soak terminal',
      variations: [{ name: 'Black' }],
    });
    return {
      url,
      partnerToken: partner.token,
      productId: product.id,
      variationId: product.variations[0].id,
      pid: child.pid,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

function temporaryDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'roa-soak-'));
  chmodSync(dir, 0o755);
  return dir;
}
