import { Client } from 'pg';
import { TEST_SERVER_URL_VAR, TEST_TEMPLATE_VAR } from './test-database';

/** Drops every database this run created, then stops the embedded server if we started one. */
export default async function globalTeardown(): Promise<void> {
  const serverUrl = process.env[TEST_SERVER_URL_VAR];
  const template = process.env[TEST_TEMPLATE_VAR];
  if (serverUrl && template) {
    const client = new Client({ connectionString: serverUrl });
    await client.connect();
    try {
      const { rows } = await client.query<{ datname: string }>(
        "SELECT datname FROM pg_database WHERE datname = $1 OR datname LIKE $1 || '\\_%'",
        [template],
      );
      for (const { datname } of rows) await client.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
    } finally {
      await client.end();
    }
  }
  await globalThis.__ROA_EMBEDDED_STOP__?.();
}
