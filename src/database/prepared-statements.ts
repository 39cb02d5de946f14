import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Pool, QueryResultRow } from 'pg';
import { DataSource } from 'typeorm';
import { countQuery } from './query-counter';

/** PostgreSQL's "cached plan must not change result type" (feature_not_supported). */
const STALE_PREPARED_PLAN = '0A000';

/** A statement PostgreSQL parses and plans once per connection, then runs by name. */
export interface PreparedStatement {
  /** Unique in the process: a connection knows each statement by this name. */
  name: string;
  text: string;
}

/**
 * The hottest reads as prepared statements, on the DataSource's own pool (same connections, same statement
 * and read timeouts): planning one order's JSON costs PostgreSQL more than running it, and TypeORM sends
 * every statement unnamed, to be parsed and planned anew. A failed statement hands its connection back as
 * broken, so a stalled one is closed (pg-pool does this for `query`): use it for reads only, where a failure
 * is rare (a timeout, a database going away), never inside a transaction.
 */
@Injectable()
export class PreparedStatements {
  private readonly pool: Pool;

  constructor(@InjectDataSource() dataSource: DataSource) {
    this.pool = (dataSource.driver as unknown as { master: Pool }).master;
  }

  async rows<Row extends QueryResultRow>(statement: PreparedStatement, values: unknown[]): Promise<Row[]> {
    try {
      return await this.run<Row>(statement, values);
    } catch (error) {
      // A migration that changed a column the statement returns (another instance's, during a deploy) makes
      // the connection's prepared plan unusable; the failed connection is closed, so prepare it anew once.
      if ((error as { code?: string }).code !== STALE_PREPARED_PLAN) throw error;
      return this.run<Row>(statement, values);
    }
  }

  private async run<Row extends QueryResultRow>(
    statement: PreparedStatement,
    values: unknown[],
  ): Promise<Row[]> {
    countQuery();
    return (await this.pool.query<Row>({ name: statement.name, text: statement.text, values })).rows;
  }
}
