import { ApiProperty } from '@nestjs/swagger';
import { orderRef } from '../order-rules';
import type { OrderType } from '../order-state';
import type { Order } from '../order.entity';
import { ORDER_VIEW } from '../domain/order-view';
import type { CommentResponse } from './order-children.response';
import { responseClass } from './view-schema';

/** An order as spec §2.3 returns it, plus the contract's extra fields: the order view's fields, typed. */
export const OrderBaseResponse = responseClass('OrderBaseResponse', ORDER_VIEW);
export type OrderBaseResponse = InstanceType<typeof OrderBaseResponse>;

/** GET /order/{id}: the comments array is named `comments`. */
export class OrderResponse extends OrderBaseResponse {
  comments!: CommentResponse[];
}

/** An element of GET /order's `data`: the comments array is named `partner_comments`. */
export class OrderListItemResponse extends OrderBaseResponse {
  partner_comments!: CommentResponse[];
}

/** The `orders` element of placement (order_id a string), update and cancel (order_id an integer) responses. */
export class OrderSummaryResponse {
  @ApiProperty({
    oneOf: [
      { type: 'string', pattern: '^[0-9]+$', maxLength: 10 },
      { type: 'integer', format: 'int32', minimum: 1, maximum: 2_147_483_647 },
    ],
    example: '123',
    description: 'A string when placing (spec §4.1), an integer when updating (spec §4.6).',
  })
  order_id!: string | number;
  /** @example "SK-0000123" */
  order_ref!: string;
  /** @example "REGULAR" */
  order_type!: OrderType;
}

export class OrderWriteResponse {
  /** @example "Order created." */
  message!: string;
  orders!: OrderSummaryResponse[];
}

/** The `orders` array of write responses: order_id a string when placing, an integer otherwise (spec quirk). */
export function toOrderSummary(order: Order, idAs: 'string' | 'integer'): OrderSummaryResponse {
  return {
    order_id: idAs === 'string' ? String(order.id) : order.id,
    order_ref: orderRef(order.site, order.id),
    order_type: order.orderType,
  };
}
