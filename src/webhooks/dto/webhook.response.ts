import { ApiDateTime } from '../../kernel/openapi.formats';
import { ApiProperty } from '@nestjs/swagger';
import type { ApiFormats } from '../../platform/formats/api-formats';
import { EVENT_TYPES } from '../../outbox/event-catalog';
import { type DeclaredEventType, publicEventId } from '../../outbox/event-types';
import {
  DELIVERY_STATUSES,
  type DeliveryStatus,
  type WebhookAttempt,
  type WebhookDelivery,
} from '../webhook-delivery.entity';
import type { WebhookEndpoint } from '../webhook-endpoint.entity';

/** A webhook endpoint as lists show it: never its secret. */
export class WebhookResponse {
  /** @example 3 */
  id!: number;
  /** @example 1 */
  company_id!: number;
  /** @example "https://hooks.example.com/restaurant-orders" */
  url!: string;
  /** False once deleted, or once the receiver answered 410 Gone. @example true */
  active!: boolean;
  /** Why the endpoint stopped receiving, when it did on its own. @example null */
  disabled_reason!: string | null;
  /**
   * The event types sent to it; null: every type (the default).
   * @example ["order.placed", "order.state_changed"]
   */
  @ApiProperty({ type: 'array', items: { type: 'string', enum: EVENT_TYPES }, nullable: true })
  event_types!: DeclaredEventType[] | null;
  /** False while disabled by an administrator or the partner: its deliveries wait, paused. @example true */
  enabled!: boolean;
  /** When it was disabled; null while enabled. @example null */
  @ApiDateTime()
  disabled_at!: string | null;
  /**
   * While a secret rotation's overlap lasts, deliveries are signed with the previous secret too, until then;
   * null when no overlap is in progress.
   * @example "2026-11-26T09:00"
   */
  @ApiDateTime()
  previous_secret_expires_at!: string | null;
  /** @example "2026-11-22T07:30" */
  @ApiDateTime()
  created_at!: string;
  /** Null while active. @example "2026-11-24T09:00" */
  @ApiDateTime()
  deleted_at!: string | null;
}

/** The response to registering an endpoint: the only time its secret is shown. */
export class CreatedWebhookResponse extends WebhookResponse {
  /**
   * Verify each delivery's `webhook-signature` with it (Standard Webhooks). Store it now: it cannot be shown again.
   * @example "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
   */
  secret!: string;
}

/** The response to a secret rotation: the only time the new secret is shown. */
export class RotatedWebhookSecretResponse extends WebhookResponse {
  /**
   * The new secret: every delivery is signed with it from now on (and with the previous one until
   * `previous_secret_expires_at`). Store it now: it cannot be shown again.
   * @example "whsec_NfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSx"
   */
  secret!: string;
}

export class WebhookAttemptResponse {
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

export class WebhookDeliveryResponse {
  /** The `deliveryId` of the retry route. @example 981 */
  @ApiProperty({
    type: 'integer',
    format: 'int64',
    minimum: 1,
    maximum: Number.MAX_SAFE_INTEGER,
    example: 981,
  })
  id!: number;
  /** The event's id, sent as `webhook-id`. @example "evt_1042" */
  event_id!: string;
  // The types the publishing modules declare, read when the document is built.
  @ApiProperty({ enum: EVENT_TYPES, example: 'order.placed' })
  event_type!: DeclaredEventType;
  /** pending (waiting for a try or a retry), paused (its endpoint is disabled), succeeded, failed (given up after 24 hours or 410), cancelled (endpoint deleted or gone). */
  @ApiProperty({ enum: DELIVERY_STATUSES, example: 'succeeded' })
  status!: DeliveryStatus;
  /** @example 2 */
  attempt_count!: number;
  /** When a pending delivery is tried next. @example "2026-11-22T07:31" */
  @ApiDateTime()
  next_attempt_at!: string | null;
  /** @example "2026-11-22T07:30" */
  @ApiDateTime()
  created_at!: string;
  /** @example "2026-11-22T07:31" */
  @ApiDateTime()
  delivered_at!: string | null;
  /** Every try, oldest first. */
  @ApiProperty({ type: [WebhookAttemptResponse] })
  attempts!: WebhookAttemptResponse[];
}

export function toWebhookResponse(endpoint: WebhookEndpoint, formats: ApiFormats): WebhookResponse {
  return {
    id: endpoint.id,
    company_id: endpoint.companyId,
    url: endpoint.url,
    active: endpoint.active,
    disabled_reason: endpoint.disabledReason,
    event_types: endpoint.eventTypes as DeclaredEventType[] | null,
    enabled: endpoint.disabledAt === null,
    disabled_at: formats.dateTime(endpoint.disabledAt),
    previous_secret_expires_at:
      endpoint.previousSecretExpiresAt && endpoint.previousSecretExpiresAt.getTime() > Date.now()
        ? formats.dateTime(endpoint.previousSecretExpiresAt)
        : null,
    created_at: formats.dateTime(endpoint.createdAt),
    deleted_at: formats.dateTime(endpoint.deletedAt),
  };
}

export function toDeliveryResponse(
  delivery: WebhookDelivery & { eventType: DeclaredEventType },
  attempts: WebhookAttempt[],
  formats: ApiFormats,
): WebhookDeliveryResponse {
  return {
    id: Number(delivery.id),
    event_id: publicEventId(delivery.eventId),
    event_type: delivery.eventType,
    status: delivery.status,
    attempt_count: delivery.attemptCount,
    next_attempt_at: delivery.status === 'pending' ? formats.dateTime(delivery.nextAttemptAt) : null,
    created_at: formats.dateTime(delivery.createdAt),
    delivered_at: formats.dateTime(delivery.deliveredAt),
    attempts: attempts.map((attempt) => ({
      attempted_at: formats.dateTime(attempt.attemptedAt),
      status_code: attempt.statusCode,
      duration_ms: attempt.durationMs,
      error: attempt.error,
    })),
  };
}
