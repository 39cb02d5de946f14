import { ApiProperty } from '@nestjs/swagger';
import { ApiDateTime } from '../../kernel/openapi.formats';
import { ROLES, type Role } from '../../kernel/access/principal';
import { EVENT_TYPES } from '../../outbox/event-catalog';
import type { DeclaredEventType } from '../../outbox/event-types';
import { OrderListItemResponse, OrderResponse } from '../../orders/dto/order.response';
import { DELIVERY_STATUSES, type DeliveryStatus } from '../../webhooks/webhooks.service';

/** The company an order belongs to. */
export class AdminOrderCompanyResponse {
  /** @example 1 */
  id!: number;
  /** @example "Demo Restaurants s.r.o." */
  name!: string;
  /** @example "SK" */
  site!: string;
}

/** An element of GET /admin/orders: the order as GET /order lists it to its partner, and its company. */
export class AdminOrderListItemResponse {
  /** The order object of GET /order's `data`, exactly as its own partner gets it. */
  order!: OrderListItemResponse;
  company!: AdminOrderCompanyResponse;
}

/** A change recorded in the audit trail: who made it, with which token, and which fields it set. */
export class AdminOrderAuditEntryResponse {
  /** The audit event's id (GET /admin/audit-events). @example 42 */
  id!: number;
  /** order.placed, order.updated, order.cancelled, order.comment, a logistics fact, ... @example "order.updated" */
  action!: string;
  /** Names of the fields the change set (never their values). @example ["email", "phone"] */
  changed_fields!: string[];
  /** The person the token was issued to. @example "alice" */
  user_name!: string;
  /** The token that made the change; null when it was made with the CLI. @example 7 */
  token_id!: number | null;
  /** The token's role; null when the change was made with the CLI. */
  @ApiProperty({ enum: ROLES, nullable: true, example: 'partner' })
  token_role!: Role | null;
  /** The X-Request-Id of the request that made the change. @example "4f1c2f0e-5b0a-4c4e-9d8e-1f0a2b3c4d5e" */
  request_id!: string | null;
}

/** The last try of a delivery. */
export class AdminOrderDeliveryAttemptResponse {
  /** @example "2026-11-22T07:30" */
  @ApiDateTime()
  attempted_at!: string;
  /** The receiver's HTTP status; null when it did not answer. @example 503 */
  status_code!: number | null;
  /** @example 87 */
  duration_ms!: number;
  /** Why the attempt failed, or null. @example "HTTP 503 Service Unavailable" */
  error!: string | null;
}

/** One delivery of an event to one endpoint, and where it stands. */
export class AdminOrderDeliveryResponse {
  /** The delivery's id in its endpoint's delivery log (`#/webhooks/{endpoint_id}/deliveries/{id}` in the console). */
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
  /** @example "https://hooks.example.com/restaurant-orders" */
  endpoint_url!: string;
  /** pending (waiting for a try or a retry), succeeded, failed (given up), cancelled (endpoint deleted or gone). */
  @ApiProperty({ enum: DELIVERY_STATUSES, example: 'failed' })
  status!: DeliveryStatus;
  /** @example 12 */
  attempt_count!: number;
  /** The last try; absent until the first. */
  last_attempt?: AdminOrderDeliveryAttemptResponse;
}

/** An event of the order (CONTRACT §5) and its deliveries. */
export class AdminOrderEventEntryResponse {
  /** The event's id, sent as `webhook-id`. @example "evt_1042" */
  id!: string;
  @ApiProperty({ enum: EVENT_TYPES, example: 'order.updated' })
  type!: DeclaredEventType;
  /** One per endpoint the company had when it happened, oldest first; at most 10 (then `timeline_truncated`). */
  deliveries!: AdminOrderDeliveryResponse[];
}

export const TIMELINE_KINDS = ['audit', 'event'] as const;
export type TimelineKind = (typeof TIMELINE_KINDS)[number];

/**
 * One entry of an order's timeline: a change from the audit trail (`audit`), or an event with its deliveries
 * (`event`); `kind` names the one present.
 */
export class AdminOrderTimelineEntryResponse {
  /** Which of `audit` and `event` the entry has. */
  @ApiProperty({ enum: TIMELINE_KINDS, example: 'audit' })
  kind!: TimelineKind;
  /** When it happened. @example "2026-11-22T07:30" */
  @ApiDateTime()
  at!: string;
  /** Present when `kind` is audit. */
  audit?: AdminOrderAuditEntryResponse;
  /** Present when `kind` is event. */
  event?: AdminOrderEventEntryResponse;
}

/** GET /admin/orders/{id}: the order, its company, and what happened to it. */
export class AdminOrderResponse {
  /** The order object of GET /order/{id}, exactly as its own partner gets it. */
  order!: OrderResponse;
  company!: AdminOrderCompanyResponse;
  /**
   * Oldest first: every change from the audit trail and every event with its deliveries (a change and the
   * events it wrote happen at the same time: the change comes first). Bounded: the newest 100 changes and the
   * newest 100 events, at most 10 deliveries each.
   */
  timeline!: AdminOrderTimelineEntryResponse[];
  /** True when the bounds left older entries (or deliveries) out. @example false */
  timeline_truncated!: boolean;
}
