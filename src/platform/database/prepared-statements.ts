import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Pool, QueryResultRow } from 'pg';
import { DataSource, type EntityManager } from 'typeorm';
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
 * The hottest statements, prepared: planning one order's JSON costs PostgreSQL more than running it, and
 * TypeORM sends every statement unnamed, to be parsed and planned anew. `rows` runs on the DataSource's own
 * pool (same connections, same statement and read timeouts); a failed statement hands its connection back as
 * broken, so a stalled one is closed (pg-pool does this for `query`). `rowsOn` joins a transaction when there
 * is one.
 */
@Injectable()
export class PreparedStatements {
  private readonly pool: Pool;

  constructor(@InjectDataSource() dataSource: DataSource) {
    this.pool = (dataSource.driver as unknown as { master: Pool }).master;
  }

  /** On the DataSource's pool, or on `pool` (a read replica's, ReplicaReads). */
  async rows<Row extends QueryResultRow>(
    statement: PreparedStatement,
    values: unknown[],
    pool: Pool = this.pool,
  ): Promise<Row[]> {
    try {
      return await this.run<Row>(statement, values, pool);
    } catch (error) {
      // A migration that changed a column the statement returns (another instance's, during a deploy) makes
      // the connection's prepared plan unusable; the failed connection is closed, so prepare it anew once.
      if ((error as { code?: string }).code !== STALE_PREPARED_PLAN) throw error;
      return this.run<Row>(statement, values, pool);
    }
  }

  /**
   * The statement in `manager`'s transaction when it has one (TypeORM hands pg its query as it is, so pg takes
   * the named config; not retried: a failed statement has aborted the transaction), else as `rows` does, on
   * the pool without TypeORM's query runner around it. A statement whose plan went stale failed before it
   * ran, so running it again is safe for a write too.
   */
  rowsOn<Row extends QueryResultRow>(
    manager: EntityManager,
    statement: PreparedStatement,
    values: unknown[],
  ): Promise<Row[]> {
    if (!manager.queryRunner) return this.rows<Row>(statement, values);
    return manager.query(statement as unknown as string, values);
  }

  private async run<Row extends QueryResultRow>(
    statement: PreparedStatement,
    values: unknown[],
    pool: Pool,
  ): Promise<Row[]> {
    countQuery(statement.text);
    return (await pool.query<Row>({ name: statement.name, text: statement.text, values })).rows;
  }
}
