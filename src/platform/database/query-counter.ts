import type { QueryRunner, Logger as TypeOrmLogger } from 'typeorm';
import { currentRequest } from '../http/request-context';
import { dropStalledConnection } from './stalled-connection';

/**
 * Counts one statement on the request (or job iteration) being served, if any: its log line's `dbQueries`,
 * and with LOG_SQL its text in the line's `sql`.
 */
export function countQuery(text: string): void {
  const request = currentRequest();
  if (!request) return;
  request.dbQueries += 1;
  request.sql?.push(text);
}

/**
 * TypeORM sees every statement (including BEGIN/COMMIT); this logger only counts them (and keeps their text
 * with LOG_SQL). Failures are logged by the exception filter with the request id, so nothing else is written
 * here; a failure that leaves the connection stalled has it dropped (TypeORM tells no one else).
 */
export class QueryCountingLogger implements TypeOrmLogger {
  /** A prepared statement run in a transaction reaches TypeORM as its `{ name, text }` (rowsOn). */
  logQuery(query: string | { text: string }): void {
    countQuery(typeof query === 'string' ? query : query.text);
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
