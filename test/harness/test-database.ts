import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { parseSealingKey, unseal } from '../../src/kernel/sealed-secret';

/** Set by global-setup for every worker: the test server's admin URL and the migrated template's name. */
export const TEST_SERVER_URL_VAR = 'ROA_TEST_SERVER_URL';
export const TEST_TEMPLATE_VAR = 'ROA_TEST_TEMPLATE';

/** The device-credentials key every test process gets (DATABASE_URL requires one); a fixed, public test value. */
export const TEST_DEVICE_CREDENTIALS_KEY = '7e57'.repeat(16);

/** A device credential as the service stored it (sealed under the test key), opened. */
export const openStoredCredential = (stored: string): string =>
  unseal(parseSealingKey(TEST_DEVICE_CREDENTIALS_KEY), stored);

export function withDatabase(serverUrl: string, database: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

export async function adminQuery(serverUrl: string, sql: string): Promise<void> {
  const client = new Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

function testServer(): { serverUrl: string; template: string } {
  const serverUrl = process.env[TEST_SERVER_URL_VAR];
  const template = process.env[TEST_TEMPLATE_VAR];
  if (!serverUrl || !template) throw new Error('The e2e harness was not set up: run the suite through jest.');
  return { serverUrl, template };
}

/**
 * TEST_POOLER_URL: a transaction-mode pooler (PgBouncer) in front of TEST_DATABASE_URL's server, which passes
 * every database name through (`* = host=... port=...`). Set, the services under test get DATABASE_URL on the
 * pooler and DATABASE_DIRECT_URL on the server (CONTRACT §9), and each test database has the timeouts the
 * service checks at start (ALTER DATABASE ... SET).
 */
const poolerUrl = (): string | undefined => process.env.TEST_POOLER_URL || undefined;

/** The timeouts a pooled test database has in force: the service's default DATABASE_STATEMENT_TIMEOUT_MS. */
const POOLED_TIMEOUT_MS = 10_000;

/** A fresh database for one spec, cloned from the migrated template in a few milliseconds. */
export async function createTestDatabase(options: { empty?: boolean } = {}): Promise<string> {
  const { serverUrl, template } = testServer();
  const name = `${template}_${randomBytes(5).toString('hex')}`;
  await adminQuery(
    serverUrl,
    `CREATE DATABASE "${name}" TEMPLATE "${options.empty ? 'template0' : template}"`,
  );
  const pooler = poolerUrl();
  if (!pooler) return withDatabase(serverUrl, name);
  await adminQuery(
    serverUrl,
    `ALTER DATABASE "${name}" SET statement_timeout = ${POOLED_TIMEOUT_MS};
     ALTER DATABASE "${name}" SET idle_in_transaction_session_timeout = ${POOLED_TIMEOUT_MS}`,
  );
  return withDatabase(pooler, name);
}

/** The server's own URL of a test database reached through TEST_POOLER_URL; undefined for any other URL. */
export function directUrlOf(databaseUrl: string): string | undefined {
  const pooler = poolerUrl();
  if (!pooler || !URL.canParse(databaseUrl)) return undefined;
  const url = new URL(databaseUrl);
  if (url.host !== new URL(pooler).host) return undefined;
  return withDatabase(testServer().serverUrl, url.pathname.slice(1));
}
