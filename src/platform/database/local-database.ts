import { join } from 'node:path';
import { Client, type DatabaseError } from 'pg';
import { parseSealingKey, KEY_BYTES } from '../../kernel/sealed-secret';
import type { Environment } from '../config/environment';
import { readOrCreateSecretFile } from '../config/local-secret';
import { StartupError } from '../config/startup-error';
import { type EmbeddedPostgres, startEmbeddedPostgres } from './embedded-postgres';

/** Where `npm start` keeps its embedded cluster when no DATABASE_URL is given. */
export const LOCAL_DATA_DIR = '.data';
export const LOCAL_DATABASE_NAME = 'restaurant_orders';
/** The device-credentials key of the embedded default, generated on first start. */
export const LOCAL_KEY_FILE = 'device-credentials.key';

export interface ResolvedDatabase {
  url: string;
  /** Set when we started the embedded server ourselves; stop it after the pool is closed. */
  embedded?: EmbeddedPostgres;
}

/** How long the start-up check waits for the database of DATABASE_URL to answer. */
const REACH_TIMEOUT_MS = 5_000;

/** Why the database of DATABASE_URL cannot be used, in the operator's words; never the URL (it holds a password). */
function unreachableCause(error: unknown): string {
  const failure = error as Partial<DatabaseError> &
    NodeJS.ErrnoException & { address?: string; port?: number; hostname?: string };
  switch (failure.code) {
    case 'ECONNREFUSED':
      return `nothing accepts connections at ${failure.address}:${failure.port} (connection refused: is PostgreSQL running there?)`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `the host ${failure.hostname} is not known (${failure.code})`;
    case '3D000':
      return `${failure.message} (create it, or correct the database name)`;
    case '28P01':
    case '28000':
      return `${failure.message} (check the user and password)`;
    default:
      return `${failure.message ?? String(error)}${failure.code ? ` (${failure.code})` : ''}`;
  }
}

/**
 * Connects once to the database of DATABASE_URL (or `variable`'s), so a URL that parses but leads nowhere (a
 * closed port, an unknown host or database, a wrong password) stops the start with one line instead of the
 * pool's retries.
 */
export async function assertReachable(url: string, variable = 'DATABASE_URL'): Promise<void> {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: REACH_TIMEOUT_MS });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('SELECT 1');
  } catch (error) {
    const cause =
      error instanceof Error && /timeout/i.test(error.message)
        ? `no answer within ${REACH_TIMEOUT_MS / 1_000} s`
        : unreachableCause(error);
    throw new StartupError(`Cannot use the database of ${variable}: ${cause}.`, variable);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * DATABASE_URL when given (once it answers); otherwise the embedded PostgreSQL kept in ./.data (the newcomer's
 * default). `shared`: whether a server another process runs on ./.data may be used (the CLI while `npm start`
 * runs), or refused (a service, which would lose it when that process stops).
 */
export async function resolveDatabase(
  databaseUrl: string | undefined,
  { shared }: { shared: boolean },
): Promise<ResolvedDatabase> {
  if (databaseUrl) {
    await assertReachable(databaseUrl);
    return { url: databaseUrl };
  }
  const embedded = await startEmbeddedPostgres({
    dir: LOCAL_DATA_DIR,
    database: LOCAL_DATABASE_NAME,
    ifRunning: shared ? 'attach' : 'refuse',
  });
  return { url: embedded.url, embedded };
}

/**
 * The key that seals device credentials: DEVICE_CREDENTIALS_KEY when set (the environment check requires it
 * with DATABASE_URL), else the embedded default's own key in ./.data, generated on first use and never logged.
 */
export async function resolveDeviceCredentialsKey(env: Environment): Promise<Buffer> {
  const text =
    env.DEVICE_CREDENTIALS_KEY ??
    (await readOrCreateSecretFile(join(LOCAL_DATA_DIR, LOCAL_KEY_FILE), KEY_BYTES));
  return parseSealingKey(text);
}
