import { ApiExtraModels, ApiProperty, getSchemaPath } from '@nestjs/swagger';
import { ApiDateTime } from '../../kernel/openapi.formats';
import { OrderResponse } from '../../orders/dto/order.response';
import { EVENT_TYPES } from '../../outbox/event-catalog';
import type { DeclaredEventType } from '../../outbox/event-types';
import { DELIVERY_STATUSES, type DeliveryStatus } from '../../webhooks/webhooks.service';

/** One request made with one of the company's tokens (CONTRACT §4.12). */
export class RequestLogEntryResponse {
  /** Its X-Request-Id (the client's own when it sent one). @example "4f1c2f0e-5b0a-4c4e-9d8e-1f0a2b3c4d5e" */
  request_id!: string;
  /** When it arrived (service time zone). @example "2026-11-28T07:30" */
  @ApiDateTime()
  created_at!: string;
  /** @example "POST" */
  method!: string;
  /** The route template it matched; null for a path no route serves. @example "/api/v2/order/:id/update" */
  route!: string | null;
  /** The path it was sent to, without the query. @example "/api/v2/order/123/update" */
  path!: string;
  /** The status it was answered with. @example 409 */
  status!: number;
  /** @example 12 */
  duration_ms!: number;
  /** @example 1 */
  company_id!: number;
  /** The token it was made with. @example 7 */
  token_id!: number;
  /** The person the token was issued to. @example "alice" */
  user_name!: string;
  /** Its Idempotency-Key header, or null. @example "order-2026-11-28-0042" */
  idempotency_key!: string | null;
  /** The order a successful request placed, changed or read; null otherwise. @example 123 */
  order_id!: number | null;
  /**
   * The body of a 4xx or 5xx answer (the contract's error body), null for any other status. The request's own body
   * is never recorded. @example {"message": "Order can no longer be updated: it has been sent to logistics."}
   */
  @ApiProperty({ type: 'object', nullable: true, additionalProperties: true })
  response_body!: Record<string, unknown> | null;
}

/** A delivery of an event to one of the company's webhook endpoints, and where it stands. */
export class RequestEventDeliveryResponse {
  /** The delivery's id in its endpoint's delivery log (GET /webhooks/{id}/deliveries). */
  @ApiProperty({
    type: 'integer',
    format: 'int64',
    minimum: 1,
    maximum: Number.MAX_SAFE_INTEGER,
    example: 981,
  })
  id!: number;
  /** @example 3 */
  endpoint_id!: number;
  /** pending (waiting for a try or a retry), succeeded, failed (given up), cancelled (endpoint deleted or gone). */
  @ApiProperty({ enum: DELIVERY_STATUSES, example: 'succeeded' })
  status!: DeliveryStatus;
  /** @example 1 */
  attempt_count!: number;
  /** The receiver's HTTP status on the last try; null when none was made or it did not answer. @example 200 */
  last_status_code!: number | null;
}

/** An event the request wrote (GET /events, webhooks), with its deliveries. */
export class RequestEventResponse {
  /** The event's id, as in the feed and in webhook-id. @example "evt_1042" */
  id!: string;
  @ApiProperty({ enum: EVENT_TYPES, example: 'order.placed' })
  type!: DeclaredEventType;
  /** @example "2026-11-28T07:30" */
  @ApiDateTime()
  created_at!: string;
  /** At most 10 per event, by id. */
  deliveries!: RequestEventDeliveryResponse[];
}

/** One request and what it caused: the order it placed or changed, the events it wrote and their deliveries. */
@ApiExtraModels(OrderResponse)
export class RequestLogDetailResponse extends RequestLogEntryResponse {
  // A nullable object is named through allOf (OpenAPI 3.0 allows no nullable beside a $ref).
  @ApiProperty({
    description:
      'The order the request placed, changed or read, as GET /order/{id} returns it now; null for none.',
    nullable: true,
    allOf: [{ $ref: getSchemaPath(OrderResponse) }],
  })
  order!: OrderResponse | null;
  /** The events of that order written while the request ran, oldest first (at most 100). */
  events!: RequestEventResponse[];
}

/** Failed requests of one route, status and message in the window. */
export class RequestErrorGroupResponse {
  /** @example "/api/v2/order/:id/update" */
  route!: string | null;
  /** @example 409 */
  status!: number;
  /** The error body's `message`. @example "Order can no longer be updated: it has been sent to logistics." */
  message!: string | null;
  /** @example 17 */
  count!: number;
  /** The newest of them: its detail is GET /requests/{request_id}. @example "4f1c2f0e-5b0a-4c4e-9d8e-1f0a2b3c4d5e" */
  latest_request_id!: string;
  /** @example "2026-11-28T07:30" */
  @ApiDateTime()
  latest_at!: string;
  /** @example 1 */
  company_id!: number;
}

/** GET /requests/errors: the groups, largest first (at most 100). */
export class RequestErrorGroupsResponse {
  data!: RequestErrorGroupResponse[];
}
