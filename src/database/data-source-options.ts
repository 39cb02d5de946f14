import { join } from 'node:path';
import type { DataSourceOptions } from 'typeorm';
import { ENTITIES } from './entities';
import { QueryCountingLogger } from './query-counter';

export interface DatabaseSettings {
  url: string;
  poolSize: number;
}

/** Fail fast rather than queue: a request waits at most this long for a connection (then 503). */
const CONNECTION_TIMEOUT_MS = 2_000;
/** No statement may hold a connection longer than this (OWASP API4: bounded resource use). */
const STATEMENT_TIMEOUT_MS = 15_000;

/** The one description of our database connection, used by the app, the CLI and the migration commands. */
export function dataSourceOptions({ url, poolSize }: DatabaseSettings): DataSourceOptions {
  return {
    type: 'postgres',
    url,
    entities: ENTITIES,
    migrations: [join(__dirname, '..', 'migrations', '*.js')],
    migrationsTableName: 'migrations',
    synchronize: false,
    migrationsRun: false,
    poolSize,
    applicationName: 'restaurant-orders-api',
    logger: new QueryCountingLogger(),
    extra: {
      connectionTimeoutMillis: CONNECTION_TIMEOUT_MS,
      statement_timeout: STATEMENT_TIMEOUT_MS,
      idle_in_transaction_session_timeout: STATEMENT_TIMEOUT_MS,
    },
  };
}
