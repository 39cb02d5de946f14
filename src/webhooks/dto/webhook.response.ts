import { ApiDateTime } from '../../kernel/openapi.formats';
import { ApiProperty } from '@nestjs/swagger';
import type { ApiFormats } from '../../platform/formats/api-formats';
import { EVENT_TYPES } from '../../outbox/event-catalog';
import { type DeclaredEventType, publicEventId } from '../../outbox/event-types';
import {
  DELIVERY_STATUSES,
  type DeliveryStatus,
  type StoredHeaders,
  type WebhookAttempt,
  type WebhookDelivery,
} from '../webhook-delivery.entity';
import type { WebhookEndpoint } from '../webhook-endpoint.entity';
import type { DeliveryDetail } from '../webhooks.service';

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

const headersSchema = (description: string, example: StoredHeaders) =>
  ApiProperty({
    type: 'object',
    additionalProperties: { type: 'string', maxLength: 1024 },
    maxProperties: 50,
    description,
    example,
  });

/** One attempt with what was sent and what came back (the delivery screen's view). */
export class WebhookAttemptDetailResponse extends WebhookAttemptResponse {
  /** The attempt's number within the delivery, from 1. @example 2 */
  number!: number;
  @headersSchema(
    "The headers sent, names in lower case: the Standard Webhooks headers with this attempt's timestamp " +
      'and signature (never the endpoint secret). Null for attempts recorded before 2026-11-25.',
    {
      'content-type': 'application/json',
      'content-length': '182',
      'user-agent': 'restaurant-orders-api-webhooks/1',
      'webhook-id': 'evt_1042',
      'webhook-timestamp': '1795332612',
      'webhook-signature': 'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=',
    },
  )
  request_headers!: StoredHeaders | null;
  @headersSchema(
    "The receiver's headers, names in lower case, a repeated one's values joined by `, `: at most 50, " +
      'each value cut at 1,024 characters, 4,096 characters in all. Null when the receiver did not answer.',
    { 'content-type': 'text/plain', 'retry-after': '30' },
  )
  response_headers!: StoredHeaders | null;
  /**
   * The first 4 KiB (4,096 bytes) of the receiver's body, read as UTF-8. Null when it did not answer.
   * @example "Service busy, try later"
   */
  response_body!: string | null;
  /** True when the receiver sent more than the 4 KiB kept. @example false */
  response_body_truncated!: boolean;
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

/** One delivery with what it sent and every attempt in full (the delivery screen). */
export class WebhookDeliveryDetailResponse extends WebhookDeliveryResponse {
  /** The endpoint the delivery goes to. @example 3 */
  endpoint_id!: number;
  /** The endpoint's company. @example 1 */
  company_id!: number;
  /**
   * The body POSTed at every attempt (the event, exactly as signed); null until the first attempt is recorded.
   * @example "{\"id\":\"evt_1042\",\"type\":\"order.placed\",\"timestamp\":\"2026-11-22T07:30:12.345Z\",\"data\":{\"order_id\":123,\"order_ref\":\"SK-0000123\",\"state\":\"PLACED\",\"order_type\":\"NEW\",\"test\":false}}"
   */
  request_body!: string | null;
  /** Every try, oldest first, with what was sent and what came back. */
  @ApiProperty({ type: [WebhookAttemptDetailResponse] })
  declare attempts: WebhookAttemptDetailResponse[];
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
  delivery: WebhookDelivery,
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

export function toDeliveryDetailResponse(
  { delivery, attempts, companyId }: DeliveryDetail,
  formats: ApiFormats,
): WebhookDeliveryDetailResponse {
  const summary = toDeliveryResponse(delivery, attempts, formats);
  return {
    ...summary,
    endpoint_id: delivery.endpointId,
    company_id: companyId,
    request_body: delivery.requestBody,
    attempts: attempts.map((attempt, index) => ({
      ...summary.attempts[index],
      number: index + 1,
      request_headers: attempt.requestHeaders,
      response_headers: attempt.responseHeaders,
      response_body: attempt.responseBody,
      response_body_truncated: attempt.responseBodyTruncated,
    })),
  };
}
