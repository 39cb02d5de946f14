import type { Type } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';
import {
  DeliveryErrorResponse,
  DetailedStatusResponse,
  TrackingResponse,
} from '../dto/order-children.response';
import { ORDER_STATES, ORDER_TYPES, type OrderState, type OrderType } from '../order-state';

/* The `data` of each event type (CONTRACT §5, built by order-events.ts). Datetimes inside are in the order
   format (YYYY-MM-DDTHH:MM, service time zone); device credentials are never in an event. */

/** What every event's data starts with: which order, and its state after the change. */
export class OrderEventData {
  /** @example 123 */
  order_id!: number;
  /** @example "SK-0000123" */
  order_ref!: string;
  @ApiProperty({ enum: ORDER_STATES, example: 'PLACED', description: 'The state after the change.' })
  state!: OrderState;
}

export class OrderPlacedData extends OrderEventData {
  @ApiProperty({ enum: ORDER_TYPES, example: 'REGULAR' })
  order_type!: OrderType;
  /** @example false */
  test!: boolean;
}

export class OrderUpdatedData extends OrderEventData {
  /** The names of the fields that changed, never their values. @example ["city", "note"] */
  changed_fields!: string[];
}

export class OrderStateChangedData extends OrderEventData {
  @ApiProperty({ enum: ORDER_STATES, example: 'PLACED' })
  previous_state!: OrderState;
}

export class OrderCommentData extends OrderEventData {
  /** The user (token) whose comment it is. @example "alice" */
  user_name!: string;
  /** True when it replaced the user's earlier comment. @example false */
  replaced!: boolean;
}

export class OrderTrackingData extends OrderEventData {
  tracking!: TrackingResponse;
  /** True when a tracking with this number was replaced. @example false */
  replaced!: boolean;
}

export class OrderDetailedStatusData extends OrderEventData {
  detailed_status!: DetailedStatusResponse;
}

export class OrderDeliveryErrorData extends OrderEventData {
  delivery_error!: DeliveryErrorResponse;
}

const DATA_OF = {
  'order.placed': OrderPlacedData,
  'order.updated': OrderUpdatedData,
  'order.comment': OrderCommentData,
  'order.state_changed': OrderStateChangedData,
  'order.tracking': OrderTrackingData,
  'order.detailed_status': OrderDetailedStatusData,
  'order.delivery_error': OrderDeliveryErrorData,
};

/** The order's event types (CONTRACT §5). */
export type OrderEventType = keyof typeof DATA_OF;

/** `order.state_changed` → `OrderStateChangedEvent`. */
const eventSchemaName = (type: OrderEventType): string =>
  type
    .split(/[._]/)
    .map((word) => word[0].toUpperCase() + word.slice(1))
    .join('') + 'Event';

/** One event of one type: the Standard Webhooks payload, the same in the feed and in a webhook body. */
function eventSchema(type: OrderEventType): Type {
  class Event {
    /** Unique; the `webhook-id` of its deliveries, and the `after` cursor of the feed. @example "evt_1042" */
    @ApiProperty({ pattern: '^evt_[1-9][0-9]{0,17}$', example: 'evt_1042' })
    id!: string;

    @ApiProperty({ enum: [type], example: type })
    type!: OrderEventType;

    @ApiProperty({
      pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3}Z$',
      example: '2026-11-22T07:30:12.345Z',
      description:
        'When the change was made: ISO 8601 in UTC with milliseconds (the one such datetime of the API).',
    })
    timestamp!: string;

    @ApiProperty({ type: DATA_OF[type] })
    data!: object;
  }
  Object.defineProperty(Event, 'name', { value: eventSchemaName(type) });
  return Event;
}

/** The schema of each order event type, in the specification's order: declared to the outbox by order-events.ts. */
export const ORDER_EVENT_SCHEMAS = Object.fromEntries(
  Object.keys(DATA_OF).map((type) => [type, eventSchema(type as OrderEventType)]),
) as Record<OrderEventType, Type>;
