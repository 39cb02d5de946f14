import { Check, Column, CreateDateColumn, Entity, ForeignKey, Index, PrimaryGeneratedColumn } from 'typeorm';
import { ROLES, type Role } from '../kernel/access/principal';
import { CONTAINS_FILTER_INDEX } from '../kernel/contains-filter';

@Entity('api_tokens')
@Check('api_tokens_role_known', `role IN (${ROLES.map((role) => `'${role}'`).join(', ')})`)
@Check('api_tokens_company_iff_partner', `(role = 'partner') = (company_id IS NOT NULL)`)
@Check('api_tokens_read_only_partner', `NOT read_only OR role = 'partner'`)
@Check('api_tokens_previous_expiry', `(previous_token_hash IS NULL) = (previous_expires_at IS NULL)`)
@Index('api_tokens_token_hash_key', ['tokenHash'], { unique: true })
@Index('api_tokens_previous_token_hash_key', ['previousTokenHash'], {
  unique: true,
  where: 'previous_token_hash IS NOT NULL',
})
@Index('api_tokens_company_id_idx', ['companyId', 'id'])
@Index('api_tokens_user_name_trgm_idx', ['userName'], CONTAINS_FILTER_INDEX)
export class ApiToken {
  @PrimaryGeneratedColumn({ primaryKeyConstraintName: 'api_tokens_pkey' })
  id!: number;

  /** SHA-256 of the secret; the secret itself is never stored. */
  @Column({ name: 'token_hash', type: 'bytea' })
  tokenHash!: Buffer;

  /**
   * SHA-256 of the secret a roll replaced, valid until previous_expires_at; null when the token was never rolled
   * or the last roll's overlap is over and a later roll dropped it.
   */
  @Column({ name: 'previous_token_hash', type: 'bytea', nullable: true })
  previousTokenHash!: Buffer | null;

  /** When the previous secret stops working (at most 7 days after the roll). */
  @Column({ name: 'previous_expires_at', type: 'timestamptz', nullable: true })
  previousExpiresAt!: Date | null;

  /** When the token last got a new secret. */
  @Column({ name: 'rolled_at', type: 'timestamptz', nullable: true })
  rolledAt!: Date | null;

  /** A read-only partner token lists, reads, exports and follows the feed; every write is refused (403). */
  @Column({ name: 'read_only', type: 'boolean', default: false })
  readOnly!: boolean;

  /** The first characters of the token, for people to recognise it in lists. */
  @Column({ type: 'varchar', length: 16 })
  prefix!: string;

  @Column({ type: 'varchar', length: 16 })
  role!: Role;

  @Column({ name: 'user_name', type: 'varchar', length: 255 })
  userName!: string;

  @Column({ name: 'company_id', type: 'integer', nullable: true })
  @ForeignKey('Company', { name: 'api_tokens_company_id_fkey', onDelete: 'RESTRICT' })
  companyId!: number | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column({ name: 'last_used_at', type: 'timestamptz', nullable: true })
  lastUsedAt!: Date | null;

  @Column({ name: 'expires_at', type: 'timestamptz', nullable: true })
  expiresAt!: Date | null;

  @Column({ name: 'revoked_at', type: 'timestamptz', nullable: true })
  revokedAt!: Date | null;
}
