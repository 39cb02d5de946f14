import { ApiProperty } from '@nestjs/swagger';
import { EVENT_TYPES, type EventType, publicEventId } from '../event-types';
import type { OrderEvent } from '../order-event.entity';

/** One event: the Standard Webhooks payload, the same in the feed and in a webhook body. */
export class EventResponse {
  /** Unique; the `webhook-id` of its deliveries, and the `after` cursor of the feed. @example "evt_1042" */
  id!: string;

  @ApiProperty({ enum: EVENT_TYPES, example: 'order.state_changed' })
  type!: EventType;

  /** When the change was made: ISO 8601 in UTC with milliseconds (the one such datetime of the API). @example "2026-11-22T07:30:12.345Z" */
  timestamp!: string;

  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description:
      'Always `order_id`, `order_ref` and `state` (after the change), plus by type: `order.placed` ' +
      '`order_type`, `test`; `order.updated` `changed_fields` (names only); `order.state_changed` ' +
      '`previous_state`; `order.comment` `user_name`, `replaced`; `order.tracking` `tracking` (as in the ' +
      'order), `replaced`; `order.detailed_status` `detailed_status`; `order.delivery_error` ' +
      '`delivery_error`. Datetimes inside are in the order format (YYYY-MM-DDTHH:MM, service time zone).',
    example: { order_id: 123, order_ref: 'SK-0000123', state: 'SENT_TO_LOGISTICS', previous_state: 'PLACED' },
  })
  data!: Record<string, unknown>;
}

export class EventListResponse {
  /** Oldest first, at most 100. Ask again with `after` set to the last id until the list comes back empty. */
  @ApiProperty({ type: [EventResponse] })
  data!: EventResponse[];
}

export function toEventResponse(
  event: Pick<OrderEvent, 'id' | 'type' | 'data' | 'createdAt'>,
): EventResponse {
  return {
    id: publicEventId(event.id),
    type: event.type,
    timestamp: event.createdAt.toISOString(),
    data: event.data,
  };
}
