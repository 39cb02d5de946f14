import { AsyncLocalStorage } from 'node:async_hooks';
import type { NextFunction, Request, Response } from 'express';
import type { Logger as TypeOrmLogger } from 'typeorm';

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

/**
 * TypeORM sees every statement (including BEGIN/COMMIT); this logger only counts them. Failures are logged
 * by the exception filter with the request id, so nothing else is written here.
 */
export class QueryCountingLogger implements TypeOrmLogger {
  logQuery(): void {
    const tally = storage.getStore();
    if (tally) tally.dbQueries += 1;
  }
  logQueryError(): void {}
  logQuerySlow(): void {}
  logSchemaBuild(): void {}
  logMigration(): void {}
  log(): void {}
}
