import type { DataSource } from 'typeorm';

/** Arbitrary but fixed: every instance of the service takes this advisory lock to migrate. */
const MIGRATION_LOCK_KEY = 7_204_311_845;

/**
 * Applies pending migrations while holding a PostgreSQL advisory lock, so instances starting together run
 * them once: the others wait for the lock, then find nothing pending. Returns the names applied.
 */
export async function runPendingMigrations(dataSource: DataSource): Promise<string[]> {
  const lockHolder = dataSource.createQueryRunner();
  await lockHolder.connect();
  try {
    await lockHolder.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    const applied = await dataSource.runMigrations({ transaction: 'each' });
    return applied.map((migration) => migration.name);
  } finally {
    await lockHolder.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]).catch(() => undefined);
    await lockHolder.release();
  }
}
