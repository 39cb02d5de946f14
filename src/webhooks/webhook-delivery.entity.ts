import {
  Check,
  Column,
  CreateDateColumn,
  Entity,
  ForeignKey,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryGeneratedColumn,
} from 'typeorm';
import { WebhookEndpoint } from './webhook-endpoint.entity';
import { oneOf } from '../kernel/check-constraint';
import type { DeclaredEventType } from '../outbox/event-types';

export const DELIVERY_STATUSES = ['pending', 'paused', 'succeeded', 'failed', 'cancelled'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/**
 * One event on its way to one endpoint: written with the event (the outbox), claimed by a dispatcher with
 * FOR UPDATE SKIP LOCKED, or by an admin's hand retry, for the lease `in_flight_until`; retried until it
 * succeeds or its 24 hours are over.
 */
@Entity('webhook_deliveries')
@Check('webhook_deliveries_status_known', oneOf('status', DELIVERY_STATUSES))
@Index('webhook_deliveries_due_idx', ['nextAttemptAt'], { where: `status = 'pending'` })
@Index('webhook_deliveries_endpoint_idx', ['endpointId', 'id'])
@Index('webhook_deliveries_endpoint_status_idx', ['endpointId', 'status', 'id'])
@Index('webhook_deliveries_endpoint_type_idx', ['endpointId', 'eventType', 'id'])
@Index('webhook_deliveries_event_idx', ['eventId'])
@Index('webhook_deliveries_paused_idx', ['endpointId', 'createdAt'], { where: `status = 'paused'` })
@Index('webhook_deliveries_created_idx', ['createdAt'])
export class WebhookDelivery {
  @PrimaryGeneratedColumn({ type: 'bigint', primaryKeyConstraintName: 'webhook_deliveries_pkey' })
  id!: string;

  /** The outbox's event (its table is the outbox's: no relation, only the key). */
  @Column({ name: 'event_id', type: 'bigint' })
  @ForeignKey('OutboxEvent', { name: 'webhook_deliveries_event_id_fkey', onDelete: 'CASCADE' })
  eventId!: string;

  /**
   * The event's type, copied from it when the delivery is written, so that the delivery log filters by type on
   * its own index (the event's row is never read for it).
   */
  @Column({ name: 'event_type', type: 'varchar', length: 32 })
  eventType!: DeclaredEventType;

  @Column({ name: 'endpoint_id', type: 'integer' })
  endpointId!: number;

  @ManyToOne(() => WebhookEndpoint, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'endpoint_id', foreignKeyConstraintName: 'webhook_deliveries_endpoint_id_fkey' })
  endpoint?: WebhookEndpoint;

  @Column({ type: 'varchar', length: 10, default: 'pending' })
  status!: DeliveryStatus;

  @Column({ name: 'attempt_count', type: 'integer', default: 0 })
  attemptCount!: number;

  @Column({ name: 'next_attempt_at', type: 'timestamptz' })
  nextAttemptAt!: Date;

  /** An attempt is being sent until then (its claimant's lease); null or past when none is. */
  @Column({ name: 'in_flight_until', type: 'timestamptz', nullable: true })
  inFlightUntil!: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column({ name: 'delivered_at', type: 'timestamptz', nullable: true })
  deliveredAt!: Date | null;

  /**
   * The body every attempt POSTed, kept once per delivery (it is the same at each attempt: only the headers
   * change); null until the first attempt is recorded, and for attempts recorded by an older version.
   */
  @Column({ name: 'request_body', type: 'text', nullable: true })
  requestBody!: string | null;
}

/** HTTP headers as stored: lower-case names, each with its value (repeated headers joined by `, `). */
export type StoredHeaders = Record<string, string>;

/** One try at a delivery: what the receiver answered (or why it did not), and how long it took. */
@Entity('webhook_attempts')
@Index('webhook_attempts_delivery_idx', ['deliveryId', 'id'])
export class WebhookAttempt {
  @PrimaryGeneratedColumn({ type: 'bigint', primaryKeyConstraintName: 'webhook_attempts_pkey' })
  id!: string;

  @Column({ name: 'delivery_id', type: 'bigint' })
  deliveryId!: string;

  @ManyToOne(() => WebhookDelivery, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'delivery_id', foreignKeyConstraintName: 'webhook_attempts_delivery_id_fkey' })
  delivery?: WebhookDelivery;

  @Column({ name: 'attempted_at', type: 'timestamptz' })
  attemptedAt!: Date;

  /** The receiver's HTTP status; null when there was no answer (timeout, refused, bad address). */
  @Column({ name: 'status_code', type: 'smallint', nullable: true })
  statusCode!: number | null;

  @Column({ name: 'duration_ms', type: 'integer' })
  durationMs!: number;

  @Column({ type: 'varchar', length: 500, nullable: true })
  error!: string | null;

  /** The headers sent: the signature is in them, the endpoint's secret never. Null for older attempts. */
  @Column({ name: 'request_headers', type: 'jsonb', nullable: true })
  requestHeaders!: StoredHeaders | null;

  /** The receiver's headers, bounded in count and size (webhook-exchange.ts); null without an answer. */
  @Column({ name: 'response_headers', type: 'jsonb', nullable: true })
  responseHeaders!: StoredHeaders | null;

  /** The first 4 KiB of the receiver's body, as UTF-8 text; null without an answer. */
  @Column({ name: 'response_body', type: 'text', nullable: true })
  responseBody!: string | null;

  /** The receiver sent more than what `response_body` keeps. */
  @Column({ name: 'response_body_truncated', type: 'boolean', default: false })
  responseBodyTruncated!: boolean;
}
