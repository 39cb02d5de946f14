import { join } from 'node:path';
import type { ClientConfig } from 'pg';
import type { DataSourceOptions } from 'typeorm';
import { DEFAULT_STATEMENT_TIMEOUT_MS } from '../config/environment';
import { QueryCountingLogger } from './query-counter';

/** The entity classes a DataSource maps: the composition root's list (src/entities.ts). */
export type EntityList = NonNullable<DataSourceOptions['entities']>;

export interface DatabaseSettings {
  url: string;
  entities: EntityList;
  poolSize: number;
  /** DATABASE_STATEMENT_TIMEOUT_MS; the migration commands use the default. */
  statementTimeoutMs?: number;
  /**
   * DATABASE_URL is a transaction-mode pooler (DATABASE_DIRECT_URL is set): no startup parameters, which
   * PgBouncer refuses or drops; the timeouts are the role's or the database's (pooled-settings.ts checks them).
   */
  pooled?: boolean;
}

/** How much longer than the statement timeout the driver waits for an answer before it gives up on the link. */
const READ_TIMEOUT_MARGIN_MS = 2_000;
/** Idle connections are probed from this long on, so a peer that vanished is noticed (TCP keepalive). */
const KEEPALIVE_DELAY_MS = 10_000;

/** The one description of our database connection, used by the app, the CLI and the migration commands. */
/**
 * Every wait on the database is bounded (CONTRACT §2), each bound from the statement timeout T: a statement
 * runs at most T (PostgreSQL cancels it); an answer that does not come within T + 2 s means a stalled link
 * (the driver gives up; a link that drops packets never answers and never refuses); a new connection is made,
 * or a pooled one handed over, within T + 2 s too. While the database is healthy a
 * connection frees up in milliseconds, so a burst of requests queues for one instead of failing; once it is
 * gone, requests fail with 503 within those bounds.
 */
export function dataSourceOptions({
  url,
  entities,
  poolSize,
  statementTimeoutMs = DEFAULT_STATEMENT_TIMEOUT_MS,
  pooled = false,
}: DatabaseSettings): DataSourceOptions {
  return {
    type: 'postgres',
    url,
    entities,
    migrations: [join(__dirname, '..', '..', 'migrations', '*.js')],
    migrationsTableName: 'migrations',
    synchronize: false,
    migrationsRun: false,
    poolSize,
    applicationName: 'restaurant-orders-api',
    logger: new QueryCountingLogger(),
    extra: {
      ...connectionBounds(statementTimeoutMs),
      ...(pooled ? {} : sessionTimeouts(statementTimeoutMs)),
    },
  };
}

/** The server-side timeouts as startup parameters, for a connection straight to PostgreSQL. */
export function sessionTimeouts(statementTimeoutMs: number): ClientConfig {
  return {
    statement_timeout: statementTimeoutMs,
    idle_in_transaction_session_timeout: statementTimeoutMs,
  };
}

/** The driver's own bounds: connecting, waiting for an answer, noticing a peer that vanished. */
export function connectionBounds(statementTimeoutMs: number): ClientConfig {
  return {
    connectionTimeoutMillis: statementTimeoutMs + READ_TIMEOUT_MARGIN_MS,
    query_timeout: statementTimeoutMs + READ_TIMEOUT_MARGIN_MS,
    keepAlive: true,
    keepAliveInitialDelayMillis: KEEPALIVE_DELAY_MS,
  };
}

/** A session of its own on the primary (DATABASE_DIRECT_URL): the migration lock, the direct session. */
export function directSessionConfig(
  url: string,
  applicationName: string,
  statementTimeoutMs = DEFAULT_STATEMENT_TIMEOUT_MS,
): ClientConfig {
  return {
    connectionString: url,
    application_name: applicationName,
    ...connectionBounds(statementTimeoutMs),
    ...sessionTimeouts(statementTimeoutMs),
  };
}
