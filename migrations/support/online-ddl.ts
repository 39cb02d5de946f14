import type { QueryRunner } from 'typeorm';

/**
 * Runs `work` on a migration's own session (a migration outside a transaction) with no statement timeout, as a
 * table scan or an index build on a large table outlasts the service's (DATABASE_STATEMENT_TIMEOUT_MS), and with
 * a lock timeout, so a statement that waits for a lock gives up after 5 s (the migration fails and can run
 * again) rather than hold back every write queued behind it. Both settings are reset after.
 */
export async function online(queryRunner: QueryRunner, work: () => Promise<void>): Promise<void> {
  await queryRunner.query(`SET statement_timeout = 0`);
  await queryRunner.query(`SET lock_timeout = '5s'`);
  try {
    await work();
  } finally {
    await queryRunner.query(`RESET statement_timeout`);
    await queryRunner.query(`RESET lock_timeout`);
  }
}

/**
 * `CREATE INDEX CONCURRENTLY IF NOT EXISTS "name" <definition>` (`ON table (…)`), after dropping an index of that
 * name that an interrupted build left invalid (IF NOT EXISTS would keep it, unusable).
 */
export async function createIndexConcurrently(
  queryRunner: QueryRunner,
  name: string,
  definition: string,
): Promise<void> {
  const invalid = (await queryRunner.query(
    `SELECT 1 FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE c.relname = $1 AND NOT i.indisvalid`,
    [name],
  )) as unknown[];
  if (invalid.length > 0) await queryRunner.query(`DROP INDEX CONCURRENTLY IF EXISTS "${name}"`);
  await queryRunner.query(`CREATE INDEX CONCURRENTLY IF NOT EXISTS "${name}" ${definition}`);
}
