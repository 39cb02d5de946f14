import { ApiDateTime } from '../../kernel/openapi.formats';
import { ApiExtraModels, ApiProperty, getSchemaPath } from '@nestjs/swagger';
import { orderRef } from '../order-rules';
import { ORDER_STATES, type OrderState, type OrderType } from '../order-state';
import type { Order } from '../order.entity';

export class TrackingResponse {
  /** @example "2026-11-22T09:15" */
  @ApiDateTime()
  status_date!: string | null;
  /** Free text from the fulfilment partner. @example "In transit" */
  status!: string | null;
  /** @example "2026-11-22T08:00" */
  @ApiDateTime()
  dispatch_date!: string | null;
  /** @example "2026-11-22T12:10" */
  @ApiDateTime()
  delivery_date!: string | null;
  /** @example "PKG123456789" */
  tracking_number!: string;
  /** @example "https://track.example.com/PKG123456789" */
  tracking_link!: string | null;
}

export class DetailedStatusResponse {
  /** @example "2026-11-22T09:15" */
  @ApiDateTime()
  status_date!: string;
  /** @example "Out for delivery" */
  status!: string;
  /** @example "Bratislava depot" */
  location!: string | null;
  /** @example "Courier has the parcel" */
  description!: string | null;
  /** @example "PKG123456789" */
  tracking_number!: string | null;
  /** @example "https://track.example.com/PKG123456789" */
  tracking_link!: string | null;
}

export class DeliveryErrorResponse {
  /** @example "Nobody at the address" */
  status!: string;
  /** @example "2026-11-22T10:30" */
  @ApiDateTime()
  date!: string;
  /** Comment, Information or Cancel. @example "Information" */
  resolution!: string;
  /** @example "Second attempt tomorrow" */
  comment!: string | null;
}

export class CommentResponse {
  /** @example 5 */
  id!: number;
  /** @example "Please deliver before noon." */
  partner_comment!: string;
  /** The user (token) who wrote it; one comment per user and order. @example "alice" */
  user_name!: string;
  /** @example "2026-11-22T07:40" */
  @ApiDateTime()
  created_at!: string;
  /** @example "2026-11-22T07:45" */
  @ApiDateTime()
  updated_at!: string;
}

/** An order as spec §2.3 returns it, plus the contract's extra fields. */
@ApiExtraModels(DetailedStatusResponse)
export class OrderBaseResponse {
  /** @example 123 */
  order_id!: number;
  /** The site, a dash and the order id padded to 7 digits. @example "SK-0000123" */
  order_ref!: string;
  /** @example "2026-11-22T07:30" */
  @ApiDateTime()
  created_at!: string;
  /** @example "Jana" */
  first_name!: string;
  /** @example "Nováková" */
  last_name!: string;
  /** @example "Bistro Group s.r.o." */
  consignee!: string;
  /** @example "jana.novakova@example.com" */
  email!: string;
  /** @example "+421900123456" */
  phone!: string;
  /** @example "81101" */
  zip!: string;
  /** @example "Bratislava" */
  city!: string;
  /** @example "Obchodná" */
  street!: string;
  /** @example "12" */
  house_number!: string;
  /** @example "2" */
  floor!: string | null;
  /** @example "B" */
  door!: string | null;
  /** @example "Mo-Fr 10:00-22:00" */
  opening_hours!: string | null;
  /** @example 2 */
  product_id!: number;
  /** @example 4 */
  product_variation_id!: number | null;
  /** Device login, as submitted. @example "bistro-12" */
  login!: string;
  /** Device password, as submitted. @example "device-secret" */
  password!: string;
  /** Set by logistics when the order is complete; null until then. @example "2026-11-23T12:00" */
  @ApiDateTime()
  final_completion_date!: string | null;
  /** @example "REGULAR" */
  order_type!: OrderType;
  /** @example null */
  original_order_id!: string | null;
  trackings!: TrackingResponse[];
  // A nullable reference: the document's finishing pass (common/openapi.ts) makes it a nullable copy of the
  // object, since OpenAPI 3.0 `nullable` needs a `type` beside it.
  @ApiProperty({
    description: 'The latest detailed status reported (by status_date), or null.',
    nullable: true,
    allOf: [{ $ref: getSchemaPath(DetailedStatusResponse) }],
  })
  detailed_status!: DetailedStatusResponse | null;
  /** Set by logistics; null until then. @example null */
  serial_number!: string | null;
  delivery_errors!: DeliveryErrorResponse[];
  /** @example "M-4411" */
  merchant_id!: string;
  @ApiProperty({ enum: ORDER_STATES, example: 'PLACED' })
  state!: OrderState;
  /** True while POST /order/{id}/update would accept an update (state PLACED or TEST). @example true */
  editable!: boolean;
  /** @example false */
  test!: boolean;
  /** @example "sk" */
  country!: string | null;
  /** @example "Ring twice" */
  note!: string | null;
  /** @example "Back entrance" */
  details!: string | null;
  /** @example null */
  corrected_order_ID!: string | null;
  /** @example 17 */
  oms_user_id!: number | null;
  /** @example false */
  retail!: boolean | null;
  /** @example false */
  dinein!: boolean | null;
  /** @example "S-22" */
  shop_number!: string | null;
  /** Moves with every change to the order or its trackings, statuses, errors and comments. @example "2026-11-22T07:45" */
  @ApiDateTime()
  updated_at!: string;
}

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
