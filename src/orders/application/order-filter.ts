import type { ApiFormats } from '../../platform/formats/api-formats';
import { MAX_DB_INTEGER } from '../../kernel/db-integer.validator';
import type { OrderState, OrderType } from '../order-state';
import type { OrderFilter } from '../persistence/orders.repository';

/** The filters of a list (or export) query as they arrive (ListOrdersQuery, ExportOrdersQuery). */
export interface OrderFilterQuery {
  order_id?: string;
  created_from?: string;
  created_to?: string;
  tracking_number?: string;
  delivered?: boolean;
  delivered_from?: string;
  delivered_to?: string;
  order_type?: OrderType;
  state?: OrderState;
  updated_from?: string;
  updated_to?: string;
}

/** The filters of a list (or export) query, parsed: datetimes in the service time zone. */
export function toOrderFilter(
  query: OrderFilterQuery,
  formats: Pick<ApiFormats, 'parseDateTime'>,
): OrderFilter {
  const at = (value: string | undefined) =>
    value === undefined ? undefined : (formats.parseDateTime(value) ?? undefined);
  return {
    // An id beyond the integer range names no order: 0 matches nothing (ids start at 1).
    orderId:
      query.order_id === undefined
        ? undefined
        : Number(query.order_id) > MAX_DB_INTEGER
          ? 0
          : Number(query.order_id),
    createdFrom: at(query.created_from),
    createdTo: at(query.created_to),
    trackingNumber: query.tracking_number,
    delivered: query.delivered,
    deliveredFrom: at(query.delivered_from),
    deliveredTo: at(query.delivered_to),
    orderType: query.order_type,
    state: query.state,
    updatedFrom: at(query.updated_from),
    updatedTo: at(query.updated_to),
  };
}
