import { Injectable } from '@nestjs/common';
import { ApiFormats } from '../../platform/formats/api-formats';
import { ReplicaReads } from '../../platform/database/replica-reads';
import type { OrderListItemResponse } from '../dto/order.response';
import { type OrderJsonRow, orderJsonSelect } from './order-json';
import { apiDateTimeSql } from './order-view';
import { type OrderFilter, OrdersRepository } from './orders.repository';

/** Where a batch ends: the last order's created_at at full precision (ISO 8601, UTC) and id. */
export interface ExportPosition {
  createdAt: string;
  id: number;
}

export interface ExportRow extends OrderJsonRow<OrderListItemResponse> {
  /** The position of this order, for the next batch to start after. */
  created_at_exact: string;
  /** The latest delivery date of its trackings (API datetime), when asked for. */
  delivered_at?: string | null;
}

/**
 * The export reads the company's orders in keyset batches (newest first, after the last one read): each batch
 * is one statement of its own, on a pooled connection taken for that statement only, so the statement timeout
 * holds per batch, no transaction stays open while a slow client reads, and nothing is left to close when the
 * client goes away. Backed by orders_company_created_idx (and the filters' indexes) like the list. Each batch
 * is a read a replica may answer (ReplicaReads): one that has replayed the company's writes made before it.
 */
@Injectable()
export class OrdersExportRepository {
  constructor(
    private readonly orders: OrdersRepository,
    private readonly formats: ApiFormats,
    private readonly reads: ReplicaReads,
  ) {}

  batch(
    companyId: number,
    filter: OrderFilter,
    after: ExportPosition | null,
    limit: number,
    withDeliveredAt: boolean,
  ): Promise<ExportRow[]> {
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
    const deliveredAt = withDeliveredAt
      ? `, (SELECT ${apiDateTimeSql('max(t.delivery_date)', zone)} FROM trackings t WHERE t.order_id = p.id) AS delivered_at`
      : '';
    return this.reads.read(companyId, ({ manager }) =>
      manager.query(
        `SELECT ${orderJsonSelect('p', zone, 'partner_comments')},
         to_char(p.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS created_at_exact${deliveredAt}
       FROM (${sql}) p ORDER BY p.created_at DESC, p.id DESC`,
        [...(parameters as unknown[]), this.formats.timeZone],
      ),
    );
  }
}
