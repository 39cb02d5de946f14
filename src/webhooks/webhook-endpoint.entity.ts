import { Column, CreateDateColumn, Entity, ForeignKey, Index, PrimaryGeneratedColumn } from 'typeorm';
import { CONTAINS_FILTER_INDEX } from '../kernel/contains-filter';

/** Where a company's events are POSTed (CONTRACT §5), with the secret they are signed with. */
@Entity('webhook_endpoints')
@Index('webhook_endpoints_company_idx', ['companyId', 'id'])
@Index('webhook_endpoints_url_trgm_idx', ['url'], CONTAINS_FILTER_INDEX)
export class WebhookEndpoint {
  @PrimaryGeneratedColumn({ primaryKeyConstraintName: 'webhook_endpoints_pkey' })
  id!: number;

  @Column({ name: 'company_id', type: 'integer' })
  @ForeignKey('Company', { name: 'webhook_endpoints_company_id_fkey', onDelete: 'RESTRICT' })
  companyId!: number;

  @Column({ type: 'varchar', length: 2048 })
  url!: string;

  /**
   * `whsec_<base64>`, sealed like the device credentials (sealed-secret.ts): it is needed in full to sign,
   * so it cannot be hashed. Never listed, never logged.
   */
  @Column({ type: 'varchar', length: 255 })
  secret!: string;

  /**
   * The secret before the last rotation, sealed like `secret`: deliveries are signed with both until
   * `previousSecretExpiresAt`, so a receiver can switch without missing one. Null once no overlap was asked.
   */
  @Column({ name: 'previous_secret', type: 'varchar', length: 255, nullable: true })
  previousSecret!: string | null;

  @Column({ name: 'previous_secret_expires_at', type: 'timestamptz', nullable: true })
  previousSecretExpiresAt!: Date | null;

  /** The event types sent to this endpoint; null: every type, those declared later too. */
  @Column({ name: 'event_types', type: 'varchar', length: 64, array: true, nullable: true })
  eventTypes!: string[] | null;

  /**
   * Set while an admin or the partner has disabled the endpoint: its deliveries are queued paused and sent
   * once it is enabled again (unless older than the 24-hour retry window: given up then).
   */
  @Column({ name: 'disabled_at', type: 'timestamptz', nullable: true })
  disabledAt!: Date | null;

  /** False once the receiver answered 410 Gone, or once deleted: nothing more is sent. */
  @Column({ type: 'boolean', default: true })
  active!: boolean;

  @Column({ name: 'disabled_reason', type: 'varchar', length: 255, nullable: true })
  disabledReason!: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  /** Deleted endpoints are kept so their delivery log stays readable. */
  @Column({ name: 'deleted_at', type: 'timestamptz', nullable: true })
  deletedAt!: Date | null;
}
