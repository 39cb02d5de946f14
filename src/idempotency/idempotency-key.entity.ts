import { Column, CreateDateColumn, Entity, ForeignKey, Index, PrimaryColumn } from 'typeorm';

/**
 * A partner write carried out under an Idempotency-Key (CONTRACT §4): the request's fingerprint and the
 * response to replay, sealed. The row is written in the same transaction as what the request changed.
 */
@Entity('idempotency_keys')
@Index('idempotency_keys_expires_at_idx', ['expiresAt'])
export class IdempotencyKey {
  @PrimaryColumn({ name: 'company_id', type: 'integer', primaryKeyConstraintName: 'idempotency_keys_pkey' })
  @ForeignKey('Company', { name: 'idempotency_keys_company_id_fkey', onDelete: 'CASCADE' })
  companyId!: number;

  @PrimaryColumn({ type: 'varchar', length: 255, primaryKeyConstraintName: 'idempotency_keys_pkey' })
  key!: string;

  /** SHA-256 (hex) of the method, path and canonical JSON body: the same key with another request is a 422. */
  @Column({ name: 'request_hash', type: 'char', length: 64 })
  requestHash!: string;

  @Column({ name: 'response_status', type: 'smallint' })
  responseStatus!: number;

  /**
   * The answer to replay (its body, and the ETag of an order it returned) as JSON, sealed like device
   * credentials (SecretSealer): the body can be an order with its device login and password.
   */
  @Column({ name: 'response', type: 'text' })
  response!: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt!: Date;
}
