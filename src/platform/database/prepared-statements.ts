import { createHash } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Pool, QueryResultRow } from 'pg';
import { DataSource, type EntityManager } from 'typeorm';
import { ServiceLogger } from '../logging/loggers';
import { countQuery } from './query-counter';

/** PostgreSQL's "cached plan must not change result type" (feature_not_supported). */
const STALE_PREPARED_PLAN = '0A000';

/** The injection token of DATABASE_PREPARED_STATEMENTS as resolved (unset: true unless DATABASE_DIRECT_URL is set). */
export const NAMED_PREPARED_STATEMENTS = Symbol('NAMED_PREPARED_STATEMENTS');

/** PostgreSQL's insufficient_privilege: the role may not create functions. */
const INSUFFICIENT_PRIVILEGE = '42501';

/** Serialises the creation of the functions below across instances (a transaction's advisory lock). */
const FUNCTION_LOCK_KEY = 7_204_311_846;

/** A statement PostgreSQL parses and plans once per connection, then runs by name. */
export interface PreparedStatement {
  /** Unique in the process: a connection knows each statement by this name. */
  name: string;
  text: string;
  /**
   * For a read, its signature (parameter types, result columns with their types): where named statements are
   * off, the read runs as a PL/pgSQL function made from it, whose plan PostgreSQL keeps per server connection
   * as it keeps a named statement's. Without it, the statement is sent unnamed there, planned on every run.
   */
  signature?: { parameters: string[]; returns: string };
}

/**
 * The hottest statements, prepared: planning one order's JSON costs PostgreSQL more than running it, and
 * TypeORM sends every statement unnamed, to be parsed and planned anew. `rows` runs on the DataSource's own
 * pool (same connections, same statement and read timeouts); a failed statement hands its connection back as
 * broken, so a stalled one is closed (pg-pool does this for `query`). `rowsOn` joins a transaction when there
 * is one.
 *
 * A transaction-mode pooler before PgBouncer 1.21 hands each transaction another server connection, which does
 * not know the names this client prepared (or knows another client's): with DATABASE_PREPARED_STATEMENTS off,
 * statements go unnamed, and a read with a `signature` runs as a function `prepared_<name>_<hash>` created on
 * first use (the hash of its text and signature, so each version of the service has its own during a deploy).
 */
@Injectable()
export class PreparedStatements {
  private readonly pool: Pool;
  /** The function of each read with a signature, once it exists (undefined: could not be created). */
  private readonly functions = new Map<string, Promise<string | undefined>>();

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(NAMED_PREPARED_STATEMENTS) private readonly named: boolean,
    private readonly logger: ServiceLogger,
  ) {
    this.pool = (dataSource.driver as unknown as { master: Pool }).master;
    this.logger.setContext(PreparedStatements.name);
  }

  /** On the DataSource's pool, or on `pool` (a read replica's, ReplicaReads). */
  async rows<Row extends QueryResultRow>(
    statement: PreparedStatement,
    values: unknown[],
    pool: Pool = this.pool,
  ): Promise<Row[]> {
    if (!this.named) return this.unnamed<Row>(statement, values, pool);
    // A migration that changed a column the statement returns (another instance's, during a deploy) makes the
    // prepared plan of every connection that had prepared it unusable. A failed connection is closed, so the
    // statement is sent again until a connection prepares it anew: at most once per connection of the pool.
    for (let stale = 0; ; stale += 1) {
      try {
        return await this.run<Row>(statement, values, pool);
      } catch (error) {
        if ((error as { code?: string }).code !== STALE_PREPARED_PLAN || stale >= pool.options.max) throw error;
      }
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
    if (!this.named) return manager.query(statement.text, values);
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

  private async unnamed<Row extends QueryResultRow>(
    statement: PreparedStatement,
    values: unknown[],
    pool: Pool,
  ): Promise<Row[]> {
    const fn = statement.signature ? await this.functionOf(statement) : undefined;
    const text = fn
      ? `SELECT * FROM ${fn}(${values.map((_, index) => `$${index + 1}`).join(', ')})`
      : statement.text;
    countQuery(text);
    return (await pool.query<Row>(text, values)).rows;
  }

  private functionOf(statement: PreparedStatement): Promise<string | undefined> {
    let fn = this.functions.get(statement.name);
    if (!fn) {
      fn = this.createFunction(statement);
      this.functions.set(statement.name, fn);
    }
    return fn;
  }

  private async createFunction(statement: PreparedStatement): Promise<string | undefined> {
    const { parameters, returns } = statement.signature!;
    const hash = createHash('sha256')
      .update(JSON.stringify([statement.text, parameters, returns]))
      .digest('hex')
      .slice(0, 16);
    const name = `prepared_${statement.name}_${hash}`;
    const signature = `${name}(${parameters.join(', ')})`;
    try {
      await this.dataSource.transaction(async (manager) => {
        await manager.query('SELECT pg_advisory_xact_lock($1)', [FUNCTION_LOCK_KEY]);
        const [{ known }] = await manager.query<{ known: boolean }[]>(
          'SELECT to_regprocedure($1) IS NOT NULL AS known',
          [signature],
        );
        if (known) return;
        await manager.query(
          `CREATE FUNCTION ${signature} RETURNS TABLE (${returns}) LANGUAGE plpgsql STABLE AS $prepared$
           #variable_conflict use_column
           BEGIN
             RETURN QUERY ${statement.text};
           END
           $prepared$`,
        );
      });
      return name;
    } catch (error) {
      // Without the right to create it, for good; anything else (the database away), tried again next time.
      if ((error as { code?: string }).code !== INSUFFICIENT_PRIVILEGE) this.functions.delete(statement.name);
      this.logger.warn(
        { event: 'prepared_function_failed', statement: statement.name, cause: (error as Error).message },
        'Could not create the function that keeps this read planned per connection: it is sent unnamed instead',
      );
      return undefined;
    }
  }
}
