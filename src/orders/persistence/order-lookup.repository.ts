import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { ApiFormats } from '../../platform/formats/api-formats';
import type { OrderListItemResponse } from '../dto/order.response';
import type { OrderState } from '../order-state';
import { type OrderJsonRow, orderJsonSelect } from './order-json';

/** An administrator's search across companies (CONTRACT §6), already parsed; every filter ANDed. */
export interface OrderLookupFilter {
  companyId?: number;
  orderId?: number;
  /** The site of the order's reference (`SK` of `SK-0000123`): with `orderId`, the reference itself. */
  site?: string;
  state?: OrderState;
  createdFrom?: Date;
  createdTo?: Date;
}

@Injectable()
export class OrderLookupRepository {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly formats: ApiFormats,
  ) {}

  /**
   * Every company's orders that pass the filter, newest first (created_at, then id), each built into its list
   * item by the order view, for the page's rows only: one statement. Each filter combination is served by an
   * index: the id (orders_pkey), the company (orders_company_created_idx, with the state
   * orders_company_state_created_idx), the state (orders_state_created_idx), none (orders_created_idx).
   */
  list(
    filter: OrderLookupFilter,
    offset: number,
    limit: number,
  ): Promise<OrderJsonRow<OrderListItemResponse>[]> {
    const parameters: unknown[] = [];
    const where: string[] = [];
    const condition = (sql: (placeholder: string) => string, value: unknown) => {
      parameters.push(value);
      where.push(sql(`$${parameters.length}`));
    };
    if (filter.companyId !== undefined) condition((p) => `o.company_id = ${p}`, filter.companyId);
    if (filter.orderId !== undefined) condition((p) => `o.id = ${p}`, filter.orderId);
    if (filter.site !== undefined) condition((p) => `o.site = ${p}`, filter.site);
    if (filter.state !== undefined) condition((p) => `o.state = ${p}`, filter.state);
    if (filter.createdFrom) condition((p) => `o.created_at >= ${p}`, filter.createdFrom);
    if (filter.createdTo) condition((p) => `o.created_at <= ${p}`, filter.createdTo);
    parameters.push(offset, limit, this.formats.timeZone);
    const [offsetAt, limitAt, zone] = [parameters.length - 2, parameters.length - 1, parameters.length];
    return this.dataSource.query(
      `SELECT ${orderJsonSelect('p', `$${zone}`, 'partner_comments')}
       FROM (SELECT o.* FROM orders o ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''}
             ORDER BY o.created_at DESC, o.id DESC OFFSET $${offsetAt} LIMIT $${limitAt}) p
       ORDER BY p.created_at DESC, p.id DESC`,
      parameters,
    );
  }
}
