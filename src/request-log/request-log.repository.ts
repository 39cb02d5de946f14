import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { RequestLogEntry } from './request-log-entry.entity';

/** A row to write: every column but the id, which the table's sequence gives. */
export type NewRequestLogEntry = Omit<RequestLogEntry, 'id'>;

/** What a list of the log keeps: every given condition holds. */
export interface RequestLogFilter {
  /** A partner's company; unset for an admin reading every company's (or the one named). */
  companyId?: number;
  /** An exact status, or a class: [400, 499] for `4xx`. */
  status?: { from: number; to: number };
  /** The route template, or the path, exactly. */
  route?: string;
  tokenId?: number;
  from?: Date;
  to?: Date;
}

/** A group of failed requests (GET /requests/errors). */
export interface ErrorGroupRow {
  route: string | null;
  status: number;
  message: string | null;
  count: string;
  latest_request_id: string;
  latest_at: Date;
  company_id: number;
}

/** The name of the partition of the day (UTC) that `day` starts: `request_log_20261128`. */
export function partitionName(day: Date): string {
  return `request_log_${day.toISOString().slice(0, 10).replaceAll('-', '')}`;
}

/** The UTC midnight that starts the day of `at`. */
export function dayOf(at: Date | number): Date {
  const day = new Date(at);
  day.setUTCHours(0, 0, 0, 0);
  return day;
}

const DAY_MS = 24 * 60 * 60 * 1000;
const PARTITION_NAME = /^request_log_(\d{4})(\d{2})(\d{2})$/;

/** The columns a batch writes, in the order of the INSERT and of its arrays. */
const COLUMNS = [
  ['created_at', 'timestamptz'],
  ['company_id', 'integer'],
  ['token_id', 'integer'],
  ['user_name', 'varchar'],
  ['request_id', 'varchar'],
  ['method', 'varchar'],
  ['route', 'varchar'],
  ['path', 'varchar'],
  ['status', 'smallint'],
  ['duration_ms', 'integer'],
  ['idempotency_key', 'varchar'],
  ['order_id', 'integer'],
  ['response_body', 'jsonb'],
] as const;

const INSERT_SQL =
  `INSERT INTO request_log (${COLUMNS.map(([name]) => name).join(', ')}) ` +
  `SELECT * FROM unnest(${COLUMNS.map(([, type], index) => `$${index + 1}::${type}[]`).join(', ')})`;

/** The first key of the advisory lock that serialises the creation of partitions across instances. */
const PARTITIONS_LOCK = 1_919_904_412;

/** The columns a list or a detail reads. */
const SELECT_COLUMNS = `id, created_at AS "createdAt", company_id AS "companyId", token_id AS "tokenId",
  user_name AS "userName", request_id AS "requestId", method, route, path, status, duration_ms AS "durationMs",
  idempotency_key AS "idempotencyKey", order_id AS "orderId", response_body AS "responseBody"`;

@Injectable()
export class RequestLogRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Writes a batch in one statement: one array per column, unnested into rows. */
  async insert(rows: NewRequestLogEntry[]): Promise<void> {
    const arrays = [
      rows.map((row) => row.createdAt),
      rows.map((row) => row.companyId),
      rows.map((row) => row.tokenId),
      rows.map((row) => row.userName),
      rows.map((row) => row.requestId),
      rows.map((row) => row.method),
      rows.map((row) => row.route),
      rows.map((row) => row.path),
      rows.map((row) => row.status),
      rows.map((row) => row.durationMs),
      rows.map((row) => row.idempotencyKey),
      rows.map((row) => row.orderId),
      rows.map((row) => (row.responseBody === null ? null : JSON.stringify(row.responseBody))),
    ];
    await this.dataSource.query(INSERT_SQL, arrays);
  }

  /**
   * Creates the partition of each given day (UTC) that does not exist yet, under an advisory lock so that two
   * instances never race on the same name.
   */
  async ensurePartitions(days: Date[]): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      await manager.query('SELECT pg_advisory_xact_lock($1)', [PARTITIONS_LOCK]);
      for (const day of days) {
        const next = new Date(day.getTime() + DAY_MS);
        await manager.query(
          `CREATE TABLE IF NOT EXISTS "${partitionName(day)}" PARTITION OF request_log ` +
            `FOR VALUES FROM ('${day.toISOString()}') TO ('${next.toISOString()}')`,
        );
      }
    });
  }

  /** The days (UTC midnights) of the existing partitions, oldest first. */
  async partitionDays(): Promise<Date[]> {
    const rows: { name: string }[] = await this.dataSource.query(
      `SELECT c.relname AS name FROM pg_inherits i
         JOIN pg_class c ON c.oid = i.inhrelid
       WHERE i.inhparent = 'request_log'::regclass ORDER BY c.relname`,
    );
    return rows.flatMap(({ name }) => {
      const match = PARTITION_NAME.exec(name);
      return match ? [new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])))] : [];
    });
  }

  /**
   * Drops a day's partition: detached first without blocking the writes and reads of the other days (DETACH
   * CONCURRENTLY, outside a transaction), then dropped whole, which costs the same whatever it holds. When the
   * detach fails because another instance's run detached it first, or a detach interrupted earlier left it
   * pending (then it is finished), the drop goes on.
   */
  async dropPartition(day: Date): Promise<void> {
    const name = partitionName(day);
    try {
      await this.dataSource.query(`ALTER TABLE request_log DETACH PARTITION "${name}" CONCURRENTLY`);
    } catch (error) {
      const [link]: { pending: boolean }[] = await this.dataSource.query(
        `SELECT inhdetachpending AS pending FROM pg_inherits
         WHERE inhparent = 'request_log'::regclass AND inhrelid = to_regclass($1)`,
        [name],
      );
      if (link?.pending)
        await this.dataSource.query(`ALTER TABLE request_log DETACH PARTITION "${name}" FINALIZE`);
      else if (link) throw error;
    }
    await this.dataSource.query(`DROP TABLE IF EXISTS "${name}"`);
  }

  /** A page of the log, newest first (request_log_company_idx, or request_log_created_idx for every company). */
  list(filter: RequestLogFilter, offset: number, limit: number): Promise<RequestLogEntry[]> {
    const { where, parameters } = conditions(filter);
    return this.dataSource.query(
      `SELECT ${SELECT_COLUMNS} FROM request_log ${where}
       ORDER BY created_at DESC, id DESC OFFSET $${parameters.length + 1} LIMIT $${parameters.length + 2}`,
      [...parameters, offset, limit],
    );
  }

  /** The newest request of that id (a client may send one id twice), of the company when one is given. */
  async byRequestId(requestId: string, companyId?: number): Promise<RequestLogEntry | undefined> {
    const rows: RequestLogEntry[] = await this.dataSource.query(
      `SELECT ${SELECT_COLUMNS} FROM request_log
       WHERE request_id = $1 AND ($2::integer IS NULL OR company_id = $2)
       ORDER BY created_at DESC, id DESC LIMIT 1`,
      [requestId, companyId ?? null],
    );
    return rows[0];
  }

  /**
   * The failed requests of a window grouped by route, status and message (and company), the largest groups
   * first, at most `limit` groups (request_log_company_errors_idx).
   */
  errorGroups(filter: RequestLogFilter, limit: number): Promise<ErrorGroupRow[]> {
    const { where, parameters } = conditions({ ...filter, status: filter.status ?? { from: 400, to: 599 } });
    return this.dataSource.query(
      `SELECT route, status, message, count(*) AS count, company_id,
         (array_agg(request_id ORDER BY created_at DESC, id DESC))[1] AS latest_request_id,
         max(created_at) AS latest_at
       FROM (SELECT *, response_body->>'message' AS message FROM request_log ${where}) failed
       GROUP BY company_id, route, status, message
       ORDER BY count(*) DESC, max(created_at) DESC
       LIMIT $${parameters.length + 1}`,
      [...parameters, limit],
    );
  }
}

/**
 * The WHERE clause of a filter, its values as parameters. A status filter of errors also states `status >= 400`
 * as a literal, so that the planner may read the errors' partial index.
 */
function conditions(filter: RequestLogFilter): { where: string; parameters: unknown[] } {
  const parameters: unknown[] = [];
  const p = (value: unknown): string => {
    parameters.push(value);
    return `$${parameters.length}`;
  };
  const clauses: string[] = [];
  if (filter.companyId !== undefined) clauses.push(`company_id = ${p(filter.companyId)}`);
  if (filter.status !== undefined) {
    clauses.push(`status BETWEEN ${p(filter.status.from)} AND ${p(filter.status.to)}`);
    if (filter.status.from >= 400) clauses.push('status >= 400');
  }
  if (filter.route !== undefined) {
    const route = p(filter.route);
    clauses.push(`(route = ${route} OR path = ${route})`);
  }
  if (filter.tokenId !== undefined) clauses.push(`token_id = ${p(filter.tokenId)}`);
  if (filter.from !== undefined) clauses.push(`created_at >= ${p(filter.from)}`);
  if (filter.to !== undefined) clauses.push(`created_at <= ${p(filter.to)}`);
  return { where: clauses.length > 0 ? `WHERE ${clauses.join(' AND ')}` : '', parameters };
}
