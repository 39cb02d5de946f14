import type { QueryRunner } from 'typeorm';

/** pg's error when an answer is overdue (query_timeout, see data-source-options.ts). */
const READ_TIMEOUT = 'Query read timeout';

interface PostgresQueryRunner extends QueryRunner {
  releasePostgresConnection(error?: Error): Promise<void>;
}

/**
 * A statement whose answer is overdue leaves its connection stalled: its reply may still arrive, out of turn
 * with the statements queued behind it, or never. The connection is handed back to the pool as broken, so
 * the pool closes it and no later request runs on it (TypeORM hands it back as healthy otherwise).
 */
export function dropStalledConnection(error: unknown, queryRunner: QueryRunner | undefined): void {
  if (!(error instanceof Error) || error.message !== READ_TIMEOUT || !queryRunner) return;
  void (queryRunner as PostgresQueryRunner).releasePostgresConnection(error);
}
