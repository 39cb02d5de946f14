import { AsyncLocalStorage } from 'node:async_hooks';
import type { NextFunction, Request, Response } from 'express';
import type { QueryRunner, Logger as TypeOrmLogger } from 'typeorm';
import { dropStalledConnection } from './stalled-connection';

/** Per-request tally of SQL statements, reported as `dbQueries` on the request's log line. */
interface QueryTally {
  dbQueries: number;
}

const storage = new AsyncLocalStorage<QueryTally>();

/** Express middleware: statements run while serving this request are counted on it. */
export function countQueries(request: Request, _response: Response, next: NextFunction): void {
  const tally = request as Request & QueryTally;
  tally.dbQueries = 0;
  storage.run(tally, next);
}

/** Counts one statement on the request being served, if any. */
export function countQuery(): void {
  const tally = storage.getStore();
  if (tally) tally.dbQueries += 1;
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
