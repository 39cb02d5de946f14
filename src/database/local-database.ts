import { type EmbeddedPostgres, startEmbeddedPostgres } from './embedded-postgres';

/** Where `npm start` keeps its embedded cluster when no DATABASE_URL is given. */
export const LOCAL_DATA_DIR = '.data';
export const LOCAL_DATABASE_NAME = 'restaurant_orders';

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
