import type { QueryRunner, Logger as TypeOrmLogger } from 'typeorm';
import { currentRequest } from '../http/request-context';
import { dropStalledConnection } from './stalled-connection';

/** Counts one statement on the request being served, if any (its log line's `dbQueries`). */
export function countQuery(): void {
  const request = currentRequest();
  if (request) request.dbQueries += 1;
}

/**
 * TypeORM sees every statement (including BEGIN/COMMIT); this logger only counts them. Failures are logged
 * by the exception filter with the request id, so nothing else is written here; a failure that leaves the
 * connection stalled has it dropped (TypeORM tells no one else).
 */
export class QueryCountingLogger implements TypeOrmLogger {
  logQuery(): void {
    countQuery();
  }
  logQueryError(
    error: string | Error,
    _query: string,
    _parameters?: unknown[],
    queryRunner?: QueryRunner,
  ): void {
    dropStalledConnection(error, queryRunner);
  }
  logQuerySlow(): void {}
  logSchemaBuild(): void {}
  logMigration(): void {}
  log(): void {}
}
