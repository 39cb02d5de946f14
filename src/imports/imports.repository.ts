import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager, Not } from 'typeorm';
import type { FieldErrors } from '../kernel/domain-error';
import { OrderImport } from './order-import.entities';

/** A line as stored at upload: its sealed body, or the errors that made it unreadable. */
export interface StoredLine {
  line: number;
  body: string | null;
  errors: FieldErrors | null;
}

/** A line's result, as the worker records it. */
export interface LineResult {
  line: number;
  result: 'placed' | 'valid' | 'failed';
  orderId: number | null;
  errors: FieldErrors | null;
}

/** A pending line as the worker reads it. */
export interface PendingLine {
  line: number;
  body: string;
}

/** A line's result as GET /orders/imports/{id}/results lists it. */
export interface ResultRow {
  line: number;
  order_id: number | null;
  errors: FieldErrors | null;
}

/** Serialises the claims of every worker (of every instance), so no company ever runs more than its two. */
const CLAIM_LOCK = 7_411_001;

const IMPORT_COLUMNS = `id, company_id AS "companyId", format, dry_run AS "dryRun", state, total, placed, failed,
  idempotency_key AS "idempotencyKey", file_sha256 AS "fileSha256", token_id AS "tokenId", user_name AS "userName",
  request_id AS "requestId", created_at AS "createdAt", started_at AS "startedAt", finished_at AS "finishedAt",
  lease_owner AS "leaseOwner", lease_until AS "leaseUntil", attempts`;

@Injectable()
export class ImportsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  get manager(): EntityManager {
    return this.dataSource.manager;
  }

  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }

  /** A new import, or null when its Idempotency-Key is taken meanwhile (order_imports_company_key_idx). */
  async create(values: Partial<OrderImport>): Promise<OrderImport | null> {
    const [row] = await this.manager.query<OrderImport[]>(
      `INSERT INTO order_imports (company_id, format, dry_run, state, total, file_sha256, idempotency_key,
         token_id, user_name, request_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
       ON CONFLICT (company_id, idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING
       RETURNING ${IMPORT_COLUMNS}`,
      [
        values.companyId,
        values.format,
        values.dryRun,
        values.state,
        values.total,
        values.fileSha256,
        values.idempotencyKey,
        values.tokenId,
        values.userName,
        values.requestId,
      ],
    );
    return row ?? null;
  }

  /** One batch of an upload's lines, in one statement. */
  async insertLines(importId: number, lines: StoredLine[]): Promise<void> {
    await this.manager.query(
      `INSERT INTO order_import_lines (import_id, line, body, result, errors)
       SELECT $1, t.line, t.body, CASE WHEN t.errors IS NULL THEN NULL ELSE 'failed' END, t.errors
       FROM unnest($2::integer[], $3::text[], $4::json[]) AS t(line, body, errors)`,
      [
        importId,
        lines.map((line) => line.line),
        lines.map((line) => line.body),
        lines.map((line) => (line.errors ? JSON.stringify(line.errors) : null)),
      ],
    );
  }

  /** The upload is whole: the import is queued for the worker, with its counts and the file's hash. */
  async finishUpload(id: number, total: number, failed: number, sha256: string): Promise<OrderImport> {
    const [rows] = await this.manager.query<[OrderImport[], number]>(
      `UPDATE order_imports SET state = 'queued', total = $2, failed = $3, file_sha256 = $4 WHERE id = $1
       RETURNING ${IMPORT_COLUMNS}`,
      [id, total, failed, sha256],
    );
    return rows[0];
  }

  /** An upload refused or cut off: the import and its lines are gone. */
  async remove(id: number): Promise<void> {
    await this.manager.delete(OrderImport, { id });
  }

  /** Uploads still `uploading` long after they started: their process died mid-upload. */
  async removeAbandonedUploads(olderThanMs: number): Promise<number> {
    const [rows] = await this.manager.query<[unknown[], number]>(
      `DELETE FROM order_imports WHERE state = 'uploading' AND created_at < now() - $1 * interval '1 millisecond'
       RETURNING id`,
      [olderThanMs],
    );
    return rows.length;
  }

  /** The company's import under this key, or null. */
  findByKey(companyId: number, key: string): Promise<OrderImport | null> {
    return this.manager.findOneBy(OrderImport, { companyId, idempotencyKey: key });
  }

  /** Lets an expired key be used again: the import keeps everything else. */
  async forgetKey(id: number): Promise<void> {
    await this.manager.update(OrderImport, { id }, { idempotencyKey: null });
  }

  findOfCompany(companyId: number, id: number): Promise<OrderImport | null> {
    return this.manager.findOneBy(OrderImport, { id, companyId, state: Not('uploading') });
  }

  findById(id: number): Promise<OrderImport | null> {
    return this.manager.findOneBy(OrderImport, { id, state: Not('uploading') });
  }

  /** Newest first; `companyId` null: every company's (order_imports_company_created_idx, order_imports_created_idx). */
  list(companyId: number | null, offset: number, limit: number): Promise<OrderImport[]> {
    return this.manager.find(OrderImport, {
      where: companyId === null ? { state: Not('uploading') } : { companyId, state: Not('uploading') },
      order: { createdAt: 'DESC', id: 'DESC' },
      skip: offset,
      take: limit,
    });
  }

  /** The results after `afterLine`, in line order, at most `limit` (the primary key's order). */
  results(importId: number, afterLine: number, limit: number): Promise<ResultRow[]> {
    return this.manager.query(
      `SELECT line, order_id, errors FROM order_import_lines
       WHERE import_id = $1 AND line > $2 AND result IS NOT NULL ORDER BY line LIMIT $3`,
      [importId, afterLine, limit],
    );
  }

  /**
   * Claims the oldest import that may run: a queued one of a company that runs fewer than `perCompany`, or a
   * running one whose lease has expired (its worker died) or was given back (its worker stopped); leased to
   * `owner` for `leaseMs`. Only a lease that expired counts as an attempt: a worker stopped on purpose does not.
   */
  claim(owner: string, leaseMs: number, perCompany: number): Promise<OrderImport | null> {
    return this.dataSource.transaction(async (manager) => {
      await manager.query('SELECT pg_advisory_xact_lock($1)', [CLAIM_LOCK]);
      const [rows] = await manager.query<[OrderImport[], number]>(
        `UPDATE order_imports SET state = 'running', started_at = coalesce(started_at, now()),
           lease_owner = $1, lease_until = now() + $2 * interval '1 millisecond',
           attempts = attempts + CASE WHEN lease_owner IS NULL THEN 0 ELSE 1 END
         WHERE id = (
           SELECT i.id FROM order_imports i
           WHERE i.state IN ('queued', 'running') AND (i.lease_until IS NULL OR i.lease_until < now())
             AND (i.state = 'running' OR (SELECT count(*) FROM order_imports r
               WHERE r.company_id = i.company_id AND r.state = 'running') < $3)
           ORDER BY i.id LIMIT 1
         )
         RETURNING ${IMPORT_COLUMNS}`,
        [owner, leaseMs, perCompany],
      );
      return rows[0] ?? null;
    });
  }

  /** The next pending lines after `afterLine`, in line order. */
  pending(importId: number, afterLine: number, limit: number): Promise<PendingLine[]> {
    return this.manager.query(
      `SELECT line, body FROM order_import_lines
       WHERE import_id = $1 AND line > $2 AND result IS NULL ORDER BY line LIMIT $3`,
      [importId, afterLine, limit],
    );
  }

  /**
   * Records a batch's results and moves the import's counts and lease, in the caller's transaction (the one that
   * placed the batch's orders). False, and nothing may commit, when a line already had its result or the lease
   * is no longer `owner`'s: another worker has taken the import over.
   */
  async record(
    manager: EntityManager,
    importId: number,
    owner: string,
    leaseMs: number,
    results: LineResult[],
  ): Promise<boolean> {
    const [recorded] = await manager.query<[unknown[], number]>(
      `UPDATE order_import_lines l SET result = t.result, order_id = t.order_id, errors = t.errors, body = NULL
       FROM unnest($2::integer[], $3::varchar[], $4::integer[], $5::json[]) AS t(line, result, order_id, errors)
       WHERE l.import_id = $1 AND l.line = t.line AND l.result IS NULL
       RETURNING l.line`,
      [
        importId,
        results.map((result) => result.line),
        results.map((result) => result.result),
        results.map((result) => result.orderId),
        results.map((result) => (result.errors ? JSON.stringify(result.errors) : null)),
      ],
    );
    if (recorded.length !== results.length) return false;
    const failed = results.filter((result) => result.result === 'failed').length;
    const [leased] = await manager.query<[unknown[], number]>(
      `UPDATE order_imports SET placed = placed + $3, failed = failed + $4,
         lease_until = now() + $5 * interval '1 millisecond'
       WHERE id = $1 AND lease_owner = $2 RETURNING id`,
      [importId, owner, results.length - failed, failed, leaseMs],
    );
    return leased.length === 1;
  }

  /** Ends the import in `state` (failing its pending lines with `errors`), if `owner` still holds it. */
  async finish(
    manager: EntityManager,
    importId: number,
    owner: string,
    state: 'completed' | 'failed',
    errors: FieldErrors,
  ): Promise<OrderImport | null> {
    const [failedLines] = await manager.query<[unknown[], number]>(
      `UPDATE order_import_lines SET result = 'failed', errors = $2, body = NULL
       WHERE import_id = $1 AND result IS NULL RETURNING line`,
      [importId, JSON.stringify(errors)],
    );
    const [rows] = await manager.query<[OrderImport[], number]>(
      `UPDATE order_imports SET state = $3, failed = failed + $4, finished_at = now(), lease_owner = NULL,
         lease_until = NULL
       WHERE id = $1 AND lease_owner = $2 RETURNING ${IMPORT_COLUMNS}`,
      [importId, owner, state, failedLines.length],
    );
    return rows[0] ?? null;
  }

  /** Gives the lease back at shutdown: another worker may resume the import at once. */
  async release(importId: number, owner: string): Promise<void> {
    await this.manager.query(
      'UPDATE order_imports SET lease_until = NULL, lease_owner = NULL WHERE id = $1 AND lease_owner = $2',
      [importId, owner],
    );
  }
}
