import { Column, CreateDateColumn, Entity, ForeignKey, Index, PrimaryGeneratedColumn } from 'typeorm';

/** Who did what to which object, when: one row per change made through the API or the CLI. */
@Entity('audit_events')
@Index('audit_events_company_id_idx', ['companyId', 'id'])
@Index('audit_events_token_id_idx', ['tokenId', 'id'])
@Index('audit_events_target_idx', ['targetType', 'targetId', 'id'])
export class AuditEvent {
  @PrimaryGeneratedColumn({ primaryKeyConstraintName: 'audit_events_pkey' })
  id!: number;

  @CreateDateColumn({ name: 'occurred_at', type: 'timestamptz' })
  occurredAt!: Date;

  /** The token that made the change; null for the CLI, which acts as the operator at the machine. */
  @Column({ name: 'token_id', type: 'integer', nullable: true })
  @ForeignKey('ApiToken', { name: 'audit_events_token_id_fkey', onDelete: 'RESTRICT' })
  tokenId!: number | null;

  @Column({ name: 'user_name', type: 'varchar', length: 255 })
  userName!: string;

  /** The company the changed object belongs to, when it belongs to one. */
  @Column({ name: 'company_id', type: 'integer', nullable: true })
  @ForeignKey('Company', { name: 'audit_events_company_id_fkey', onDelete: 'RESTRICT' })
  companyId!: number | null;

  /** e.g. company.created, token.issued, token.revoked, order.placed. */
  @Column({ type: 'varchar', length: 64 })
  action!: string;

  @Column({ name: 'target_type', type: 'varchar', length: 32 })
  targetType!: string;

  @Column({ name: 'target_id', type: 'varchar', length: 64 })
  targetId!: string;

  @Column({ name: 'request_id', type: 'varchar', length: 128, nullable: true })
  requestId!: string | null;

  /** Names of the fields the change set; never their values. */
  @Column({ name: 'changed_fields', type: 'text', array: true })
  changedFields!: string[];
}
