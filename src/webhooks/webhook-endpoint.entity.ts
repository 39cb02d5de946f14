import { Column, CreateDateColumn, Entity, ForeignKey, Index, PrimaryGeneratedColumn } from 'typeorm';

/** Where a company's events are POSTed (CONTRACT §5), with the secret they are signed with. */
@Entity('webhook_endpoints')
@Index('webhook_endpoints_company_idx', ['companyId', 'id'])
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
