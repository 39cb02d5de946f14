import { Injectable } from '@nestjs/common';
import { MAX_DB_INTEGER } from '../../kernel/db-integer.validator';
import { ApiFormats } from '../../platform/formats/api-formats';
import type { OrderListItemResponse, OrderResponse } from '../dto/order.response';
import type { OrderState } from '../order-state';
import { withCredentials } from '../persistence/order-json';
import { OrderLookupRepository } from '../persistence/order-lookup.repository';
import { OrdersService } from './orders.service';

/** An administrator's search across companies as it arrives (ListAdminOrdersQuery), validated. */
export interface OrderLookupQuery {
  company_id?: number;
  order_id?: string;
  /** `SK-0000123`: the site and the order id (leading zeros optional, any case). */
  order_ref?: string;
  state?: OrderState;
  created_from?: string;
  created_to?: string;
}

/** An order as an administrator finds it: the object partners get, and the company it belongs to. */
export interface FoundOrder<Body> {
  order: Body;
  companyId: number;
}

/** An id beyond the integer range names no order: 0 matches nothing (ids start at 1). */
const orderIdOf = (digits: string): number => (Number(digits) > MAX_DB_INTEGER ? 0 : Number(digits));

/**
 * The administrator's reads of orders across companies (CONTRACT §6), through the same order view as the
 * partner API: the objects are the ones GET /order and GET /order/{id} return, never a second rendering.
 */
@Injectable()
export class OrderLookupService {
  constructor(
    private readonly lookup: OrderLookupRepository,
    private readonly orders: OrdersService,
    private readonly formats: ApiFormats,
  ) {}

  /** A page of every company's orders that pass the filters, newest first: one statement. */
  async list(
    query: OrderLookupQuery,
    offset: number,
    limit: number,
  ): Promise<FoundOrder<OrderListItemResponse>[]> {
    const at = (value: string | undefined) =>
      value === undefined ? undefined : (this.formats.parseDateTime(value) ?? undefined);
    const reference = query.order_ref === undefined ? null : /^([A-Za-z]{2})-(\d+)$/.exec(query.order_ref);
    const byId = query.order_id === undefined ? undefined : orderIdOf(query.order_id);
    const byReference = reference ? orderIdOf(reference[2]) : undefined;
    const rows = await this.lookup.list(
      {
        companyId: query.company_id,
        // Both given and naming different orders: nothing matches.
        orderId:
          byId !== undefined && byReference !== undefined && byId !== byReference ? 0 : (byId ?? byReference),
        site: reference ? reference[1].toUpperCase() : undefined,
        state: query.state,
        createdFrom: at(query.created_from),
        createdTo: at(query.created_to),
      },
      offset,
      limit,
    );
    return rows.map((row) => ({ order: withCredentials(row, this.formats), companyId: row.company_id }));
  }

  /** Any company's order, as GET /order/{id} returns it to its own partner: one statement. */
  async get(orderId: number): Promise<FoundOrder<OrderResponse>> {
    const row = await this.orders.getById(orderId);
    return { order: withCredentials(row, this.formats), companyId: row.company_id };
  }
}
