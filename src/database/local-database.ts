import { join } from 'node:path';
import { parseSealingKey, KEY_BYTES } from '../common/sealed-secret';
import type { Environment } from '../config/environment';
import { readOrCreateSecretFile } from '../config/local-secret';
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

/** DATABASE_URL when given; otherwise the embedded PostgreSQL kept in ./.data (the newcomer's default). */
export async function resolveDatabase(databaseUrl: string | undefined): Promise<ResolvedDatabase> {
  if (databaseUrl) return { url: databaseUrl };
  const embedded = await startEmbeddedPostgres({ dir: LOCAL_DATA_DIR, database: LOCAL_DATABASE_NAME });
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
