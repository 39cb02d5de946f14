import { Column, Entity, Index, PrimaryColumn, PrimaryGeneratedColumn } from 'typeorm';

/**
 * One request made with a company's token (CONTRACT §4.12): what was asked and answered, never a request body,
 * a header's value other than the Idempotency-Key, or a token. The table is partitioned by day on `created_at`
 * (the migration creates it so; request-log-partitions.ts creates the days ahead and drops those past the 14 days
 * kept), so the primary key holds the partition key.
 */
@Entity('request_log')
@Index('request_log_company_idx', ['companyId', 'createdAt', 'id'])
@Index('request_log_company_request_idx', ['companyId', 'requestId'])
@Index('request_log_created_idx', ['createdAt', 'id'])
@Index('request_log_company_errors_idx', ['companyId', 'createdAt'], { where: 'status >= 400' })
export class RequestLogEntry {
  /** bigint: TypeORM hands it over as a string; it only orders the requests of one instant. */
  @PrimaryGeneratedColumn({ type: 'bigint', primaryKeyConstraintName: 'request_log_pkey' })
  id!: string;

  /** When the request arrived (the service's clock). */
  @PrimaryColumn({ name: 'created_at', type: 'timestamptz', primaryKeyConstraintName: 'request_log_pkey' })
  createdAt!: Date;

  @Column({ name: 'company_id', type: 'integer' })
  companyId!: number;

  @Column({ name: 'token_id', type: 'integer' })
  tokenId!: number;

  @Column({ name: 'user_name', type: 'varchar', length: 255 })
  userName!: string;

  /** X-Request-Id: the client's when it sent a sane one, so not unique. */
  @Column({ name: 'request_id', type: 'varchar', length: 128 })
  requestId!: string;

  @Column({ type: 'varchar', length: 16 })
  method!: string;

  /** The route template (`/api/v2/order/:id`); null for a path no route serves. */
  @Column({ type: 'varchar', length: 255, nullable: true })
  route!: string | null;

  /** The path without its query, cut at 2,048 characters. */
  @Column({ type: 'varchar', length: 2048 })
  path!: string;

  @Column({ type: 'smallint' })
  status!: number;

  @Column({ name: 'duration_ms', type: 'integer' })
  durationMs!: number;

  @Column({ name: 'idempotency_key', type: 'varchar', length: 255, nullable: true })
  idempotencyKey!: string | null;

  /** The order a successful request placed, changed or read; null otherwise. */
  @Column({ name: 'order_id', type: 'integer', nullable: true })
  orderId!: number | null;

  /** The response body of a 4xx or 5xx (the contract's error body); null for every other status. */
  @Column({ name: 'response_body', type: 'jsonb', nullable: true })
  responseBody!: Record<string, unknown> | null;
}
