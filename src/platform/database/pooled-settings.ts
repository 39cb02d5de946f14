import { Client } from 'pg';
import { StartupError } from '../config/startup-error';

/** The server-side timeouts every statement needs (CONTRACT §2), which a pooler lets no client set at start. */
const TIMEOUTS = ['statement_timeout', 'idle_in_transaction_session_timeout'];

/** How long the start-up check waits for the pooler to answer. */
const CHECK_TIMEOUT_MS = 5_000;

/**
 * Through a transaction-mode pooler the service sends no startup parameters (PgBouncer refuses them, or drops
 * them when told to ignore them), so the timeouts must be the role's or the database's (ALTER ROLE ... SET).
 * Reads them through DATABASE_URL as any pooled statement sees them, and refuses to start unless each is in
 * force, from 1 ms up to DATABASE_STATEMENT_TIMEOUT_MS (the driver gives up on an answer 2 s after that).
 */
export async function assertTimeoutsInForce(url: string, statementTimeoutMs: number): Promise<void> {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: CHECK_TIMEOUT_MS });
  client.on('error', () => undefined);
  let role: string;
  let settings: { name: string; ms: string }[];
  try {
    await client.connect();
    ({ rows: settings } = await client.query<{ name: string; ms: string }>(
      `SELECT name, setting AS ms FROM pg_settings WHERE name = ANY($1::text[]) ORDER BY name DESC`,
      [TIMEOUTS],
    ));
    role = (await client.query<{ role: string }>('SELECT current_user AS role')).rows[0].role;
  } catch (error) {
    throw new StartupError(
      `Cannot read the timeouts in force through DATABASE_URL: ${(error as Error).message}.`,
      'DATABASE_URL',
    );
  } finally {
    await client.end().catch(() => undefined);
  }
  const wrong = settings.filter(({ ms }) => Number(ms) <= 0 || Number(ms) > statementTimeoutMs);
  if (wrong.length === 0) return;
  const found = wrong
    .map(({ name, ms }) => `${name} is ${Number(ms) <= 0 ? '0 (none)' : `${ms} ms`}`)
    .join(', ');
  const fix = TIMEOUTS.map((name) => `ALTER ROLE "${role}" SET ${name} = ${statementTimeoutMs}`).join('; ');
  throw new StartupError(
    `Timeouts are not in force through DATABASE_URL (a pooler: DATABASE_DIRECT_URL is set): ${found}; every statement needs them from 1 to DATABASE_STATEMENT_TIMEOUT_MS (${statementTimeoutMs} ms): ${fix}; then let the pooler reconnect (PgBouncer: RECONNECT).`,
    'DATABASE_URL',
  );
}
