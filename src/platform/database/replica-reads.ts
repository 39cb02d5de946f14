import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Pool, QueryResultRow } from 'pg';
import { Counter } from 'prom-client';
import { DataSource, type DataSourceOptions, type EntityManager } from 'typeorm';
import { ServiceLogger } from '../logging/loggers';
import { dataSourceOptions, type DatabaseSettings } from './data-source-options';
import { type PreparedStatement, PreparedStatements } from './prepared-statements';

/** What DatabaseModule is given for the replicas: their URLs (none: no replica) and the pool size of each. */
export interface ReplicaSettings {
  urls: string[];
  poolSize: number;
  /** The primary's settings, which each replica's DataSource copies but for its URL and pool size. */
  database: Omit<DatabaseSettings, 'url' | 'poolSize'>;
}

export const REPLICA_SETTINGS = Symbol('REPLICA_SETTINGS');

/** Where a read runs: the manager for TypeORM's queries, `rows` for a prepared statement. */
export interface ReadTarget {
  manager: EntityManager;
  rows<Row extends QueryResultRow>(statement: PreparedStatement, values: unknown[]): Promise<Row[]>;
}

/** Why a read was answered where it was (the `reason` label of db_reads_total). */
type ReadReason = 'caught_up' | 'no_replica' | 'replica_behind' | 'replica_unavailable';

/** A replica that failed is left alone this long before it is tried again: its reads go to the primary. */
const RETRY_AFTER_MS = 5_000;
/** A replica that does not accept a connection this fast is unavailable: the read goes to the primary. */
const CONNECT_TIMEOUT_MS = 1_000;

/** The company's last write position: its recorded one, or where the primary's WAL is now when none is. */
const COMPANY_POSITION: PreparedStatement = {
  name: 'company_write_position',
  text: `SELECT (coalesce((SELECT lsn FROM company_write_positions WHERE company_id = $1), pg_current_wal_insert_lsn())
           - '0/0'::pg_lsn)::text AS position`,
};
/** A read of every company (the audit list unfiltered) must see every write: where the primary's WAL is now. */
const PRIMARY_POSITION: PreparedStatement = {
  name: 'primary_write_position',
  text: `SELECT (pg_current_wal_insert_lsn() - '0/0'::pg_lsn)::text AS position`,
};
/** How far a replica has replayed; a server that is not in recovery (a primary) has everything. */
const REPLAYED: PreparedStatement = {
  name: 'replica_replayed_position',
  text: `SELECT (CASE WHEN pg_is_in_recovery() THEN pg_last_wal_replay_lsn() ELSE pg_current_wal_insert_lsn() END
           - '0/0'::pg_lsn)::text AS position`,
};

interface PositionRow {
  position: string | null;
}

/** A WAL position in bytes (numeric text, from `lsn - '0/0'`); an unknown one is 0, behind everything. */
function bytes(row: PositionRow | undefined): bigint {
  return BigInt(row?.position ?? 0);
}

/** The failure of a connection (refused, reset, timed out, the server shutting down), not of a statement. */
function connectionLost(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return (
    typeof code !== 'string' || !/^[0-9A-Z]{5}$/.test(code) || code.startsWith('08') || code.startsWith('57P')
  );
}

/** One replica: its DataSource, made on first use, and the least it is known to have replayed. */
class Replica {
  private dataSource?: Promise<DataSource>;
  /** Replay only moves forward, so a position once read is a lower bound until the connection fails. */
  private replayed = 0n;
  private unavailableUntil = 0;

  constructor(
    readonly index: number,
    private readonly options: DataSourceOptions,
    private readonly prepared: PreparedStatements,
  ) {}

  get available(): boolean {
    return Date.now() >= this.unavailableUntil;
  }

  /** Whether the replica has replayed `position`: asked only when what is known of it does not say so. */
  async hasReplayed(position: bigint): Promise<boolean> {
    if (this.replayed >= position) return true;
    const target = await this.target();
    const replayed = bytes((await target.rows<PositionRow>(REPLAYED, []))[0]);
    if (replayed > this.replayed) this.replayed = replayed;
    return this.replayed >= position;
  }

  async target(): Promise<ReadTarget> {
    const dataSource = await (this.dataSource ??= this.connect());
    const pool = (dataSource.driver as unknown as { master: Pool }).master;
    return {
      manager: dataSource.manager,
      rows: (statement, values) => this.prepared.rows(statement, values, pool),
    };
  }

  /** A DataSource of its own; one that cannot be made leaves the replica alone for a while. */
  private connect(): Promise<DataSource> {
    return new DataSource(this.options).initialize().catch((error: unknown) => {
      this.dataSource = undefined;
      this.unavailableUntil = Date.now() + RETRY_AFTER_MS;
      throw error;
    });
  }

  /** After a failure: nothing known of its replay any more; a lost connection leaves it alone for a while. */
  failed(error: unknown): void {
    this.replayed = 0n;
    if (!connectionLost(error)) return;
    this.unavailableUntil = Date.now() + RETRY_AFTER_MS;
    const dataSource = this.dataSource;
    this.dataSource = undefined;
    void dataSource?.then((made) => made.destroy()).catch(() => undefined);
  }

  async close(): Promise<void> {
    const dataSource = this.dataSource;
    this.dataSource = undefined;
    await dataSource?.then((made) => made.destroy()).catch(() => undefined);
  }
}

/**
 * The reads CONTRACT §9 lets a read replica answer (order lists and single orders, the export, the events
 * feed, the audit list) go through `read`, and nothing else does: validation reads, token look-ups and reads
 * inside a write stay on the primary. A replica answers a company's read only when it has replayed that
 * company's last write (WritePositions records where it ended, after it commits): one prepared look-up on the
 * primary, then the read on the replica; the replica is asked how far it has replayed only when what is known
 * of it (a lower bound, kept from its last answer) does not already cover the write. That question comes
 * before the read, never inside it: a statement takes its snapshot before it runs, so a replay position read
 * in the same statement could be newer than what the statement sees. A replica that is behind, refuses, or
 * fails the read costs the primary one more read, never a failed request.
 */
@Injectable()
export class ReplicaReads implements OnApplicationShutdown {
  /** Reads per target and why; registered on the service's registry by AppMetrics. */
  readonly reads = new Counter({
    name: 'db_reads_total',
    help:
      'Reads a replica may answer, by where they ran (primary, replica) and why: caught_up (the replica had ' +
      'replayed the company\u2019s last write), no_replica, replica_behind, replica_unavailable',
    labelNames: ['target', 'reason'] as const,
    registers: [],
  });

  private readonly replicas: Replica[];
  private readonly primary: ReadTarget;
  private next = 0;

  constructor(
    @InjectDataSource() dataSource: DataSource,
    private readonly prepared: PreparedStatements,
    @Inject(REPLICA_SETTINGS) settings: ReplicaSettings,
    private readonly logger: ServiceLogger,
  ) {
    this.logger.setContext(ReplicaReads.name);
    this.primary = {
      manager: dataSource.manager,
      rows: (statement, values) => prepared.rows(statement, values),
    };
    this.replicas = settings.urls.map((url, index) => {
      const options = dataSourceOptions({ ...settings.database, url, poolSize: settings.poolSize });
      const extra = { ...(options.extra as object), connectionTimeoutMillis: CONNECT_TIMEOUT_MS };
      return new Replica(index, { ...options, extra }, prepared);
    });
  }

  /**
   * Runs `read` on a replica that has replayed `companyId`'s last write, else on the primary; `companyId` null
   * (a read across companies) waits for every write made so far.
   */
  async read<T>(companyId: number | null, read: (target: ReadTarget) => Promise<T>): Promise<T> {
    if (this.replicas.length === 0) return this.onPrimary('no_replica', read);
    const [row] = await this.prepared.rows<PositionRow>(
      companyId === null ? PRIMARY_POSITION : COMPANY_POSITION,
      companyId === null ? [] : [companyId],
    );
    const position = bytes(row);
    let reason: ReadReason = 'replica_unavailable';
    for (const replica of this.inTurn()) {
      try {
        if (!(await replica.hasReplayed(position))) {
          reason = 'replica_behind';
          continue;
        }
        const result = await read(await replica.target());
        this.reads.inc({ target: 'replica', reason: 'caught_up' });
        return result;
      } catch (error) {
        this.warn(replica, error);
        replica.failed(error);
      }
    }
    return this.onPrimary(reason, read);
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all(this.replicas.map((replica) => replica.close()));
  }

  private onPrimary<T>(reason: ReadReason, read: (target: ReadTarget) => Promise<T>): Promise<T> {
    this.reads.inc({ target: 'primary', reason });
    return read(this.primary);
  }

  /** The available replicas, each read starting at the next one, so reads spread over them. */
  private inTurn(): Replica[] {
    const start = this.next;
    this.next = (this.next + 1) % this.replicas.length;
    return [...this.replicas.slice(start), ...this.replicas.slice(0, start)].filter(
      (replica) => replica.available,
    );
  }

  private warn(replica: Replica, error: unknown): void {
    const message = error instanceof Error ? error.message : String(error);
    this.logger.warn(
      { replica: replica.index, error: message },
      'A read replica failed a read; the primary answers it (and, if the replica is unreachable, its reads for a few seconds)',
    );
  }
}
