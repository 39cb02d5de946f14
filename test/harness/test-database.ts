import { randomBytes } from 'node:crypto';
import { Client } from 'pg';

/** Set by global-setup for every worker: the test server's admin URL and the migrated template's name. */
export const TEST_SERVER_URL_VAR = 'ROA_TEST_SERVER_URL';
export const TEST_TEMPLATE_VAR = 'ROA_TEST_TEMPLATE';

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

/** A fresh database for one spec, cloned from the migrated template in a few milliseconds. */
export async function createTestDatabase(options: { empty?: boolean } = {}): Promise<string> {
  const { serverUrl, template } = testServer();
  const name = `${template}_${randomBytes(5).toString('hex')}`;
  await adminQuery(
    serverUrl,
    `CREATE DATABASE "${name}" TEMPLATE "${options.empty ? 'template0' : template}"`,
  );
  return withDatabase(serverUrl, name);
}
