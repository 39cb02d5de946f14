import { Injectable } from '@nestjs/common';
import { ApiFormats } from '../../platform/formats/api-formats';
import type { Credentials } from '../../platform/formats/device-credentials';
import { ReplicaReads } from '../../platform/database/replica-reads';
import { type OrderJsonTextRow, orderJsonTextSelect } from './order-json';
import type { OrderCsvColumn } from '../domain/order-view';
import { orderCsvSelectSql } from './order-view';
import { type OrderFilter, OrdersRepository } from './orders.repository';

/** Where a batch ends: the last order's created_at at full precision (ISO 8601, UTC) and id. */
export interface ExportPosition {
  createdAt: string;
  id: number;
}

/** Where each row of a batch is, for the next batch to start after the last. */
interface Positioned {
  position_created_at: string;
  position_id: number;
}

/** An NDJSON line's order: the list item's JSON text as PostgreSQL wrote it, credentials still sealed. */
export type ExportJsonRow = OrderJsonTextRow & Positioned;

/** A CSV row's cells by column, as the order object has them; the device credentials still sealed. */
export type ExportCsvRow = Record<OrderCsvColumn, unknown> & Credentials & Positioned;

/**
 * The export reads the company's orders in keyset batches (newest first, after the last one read): each batch
 * is one statement of its own, on a pooled connection taken for that statement only, so the statement timeout
 * holds per batch, no transaction stays open while a slow client reads, and nothing is left to close when the
 * client goes away. Backed by orders_company_created_idx (and the filters' indexes) like the list. Each batch
 * is a read a replica may answer (ReplicaReads): one that has replayed the company's writes made before it.
 * Rows come as text, never parsed: an NDJSON line is PostgreSQL's JSON of the list item, a CSV row its cells.
 */
@Injectable()
export class OrdersExportRepository {
  constructor(
    private readonly orders: OrdersRepository,
    private readonly formats: ApiFormats,
    private readonly reads: ReplicaReads,
  ) {}

  /** A batch of NDJSON lines' orders: each list item of GET /orders as JSON text. */
  jsonBatch(
    companyId: number,
    filter: OrderFilter,
    after: ExportPosition | null,
    limit: number,
  ): Promise<ExportJsonRow[]> {
    return this.batch(companyId, filter, after, limit, (zone) =>
      orderJsonTextSelect('p', zone, 'partner_comments'),
    );
  }

  /** A batch of CSV rows: the file's columns, each named by its header. */
  csvBatch(
    companyId: number,
    filter: OrderFilter,
    after: ExportPosition | null,
    limit: number,
  ): Promise<ExportCsvRow[]> {
    return this.batch(companyId, filter, after, limit, (zone) => orderCsvSelectSql('p', zone));
  }

  private batch<Row>(
    companyId: number,
    filter: OrderFilter,
    after: ExportPosition | null,
    limit: number,
    select: (zone: string) => string,
  ): Promise<Row[]> {
    const query = this.orders.filtered(companyId, filter);
    if (after) {
      query.andWhere('(o.created_at, o.id) < (CAST(:afterCreatedAt AS timestamptz), :afterId)', {
        afterCreatedAt: after.createdAt,
        afterId: after.id,
      });
    }
    const [sql, parameters] = query
      .select('o.*')
      .orderBy('o.created_at', 'DESC')
      .addOrderBy('o.id', 'DESC')
      .limit(limit)
      .getQueryAndParameters();
    const zone = `$${parameters.length + 1}`;
    return this.reads.read(companyId, ({ manager }) =>
      manager.query(
        `SELECT ${select(zone)},
           to_char(p.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS position_created_at,
           p.id AS position_id
         FROM (${sql}) p ORDER BY p.created_at DESC, p.id DESC`,
        [...(parameters as unknown[]), this.formats.timeZone],
      ),
    );
  }
}
