import {
  Column,
  CreateDateColumn,
  Entity,
  ForeignKey,
  Index,
  PrimaryColumn,
  PrimaryGeneratedColumn,
} from 'typeorm';

export const IMPORT_STATES = ['queued', 'running', 'completed', 'failed'] as const;
export type ImportState = (typeof IMPORT_STATES)[number];

export const IMPORT_FORMATS = ['csv', 'ndjson'] as const;
export type ImportFormat = (typeof IMPORT_FORMATS)[number];

/**
 * A bulk import (CONTRACT §4.11): a file of orders, stored line by line (ImportLine) in the upload's
 * transaction, then placed by the import worker, which holds it under a lease while it works.
 */
@Entity('order_imports')
@Index('order_imports_company_created_idx', ['companyId', 'createdAt', 'id'])
@Index('order_imports_created_idx', ['createdAt', 'id'])
@Index('order_imports_company_key_idx', ['companyId', 'idempotencyKey'], {
  unique: true,
  where: 'idempotency_key IS NOT NULL',
})
@Index('order_imports_open_idx', ['companyId', 'id'], { where: "state IN ('queued', 'running')" })
export class OrderImport {
  @PrimaryGeneratedColumn({ primaryKeyConstraintName: 'order_imports_pkey' })
  id!: number;

  @Column({ name: 'company_id', type: 'integer' })
  @ForeignKey('Company', { name: 'order_imports_company_id_fkey', onDelete: 'CASCADE' })
  companyId!: number;

  @Column({ type: 'varchar', length: 8 })
  format!: ImportFormat;

  @Column({ name: 'dry_run', type: 'boolean' })
  dryRun!: boolean;

  /** An import's state, or `uploading` while its file is still arriving (then no route shows it). */
  @Column({ type: 'varchar', length: 16, default: 'queued' })
  state!: ImportState | 'uploading';

  /** The lines of the file (its orders). */
  @Column({ type: 'integer' })
  total!: number;

  /** Lines placed (in a dry run: lines that would be placed). */
  @Column({ type: 'integer', default: 0 })
  placed!: number;

  @Column({ type: 'integer', default: 0 })
  failed!: number;

  /** The upload's Idempotency-Key: a repeat of the same file returns this import (24 hours). */
  @Column({ name: 'idempotency_key', type: 'varchar', length: 255, nullable: true })
  idempotencyKey!: string | null;

  /** SHA-256 (hex) of the file's bytes: the same key with another file is a 422. */
  @Column({ name: 'file_sha256', type: 'char', length: 64 })
  fileSha256!: string;

  /** Who uploaded it: the audit trail's actor of every order it places. */
  @Column({ name: 'token_id', type: 'integer', nullable: true })
  tokenId!: number | null;

  @Column({ name: 'user_name', type: 'varchar', length: 255 })
  userName!: string;

  @Column({ name: 'request_id', type: 'varchar', length: 255, nullable: true })
  requestId!: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column({ name: 'started_at', type: 'timestamptz', nullable: true })
  startedAt!: Date | null;

  @Column({ name: 'finished_at', type: 'timestamptz', nullable: true })
  finishedAt!: Date | null;

  /** The worker holding the import (instance and run), until `leaseUntil`; another takes it over after. */
  @Column({ name: 'lease_owner', type: 'varchar', length: 64, nullable: true })
  leaseOwner!: string | null;

  @Column({ name: 'lease_until', type: 'timestamptz', nullable: true })
  leaseUntil!: Date | null;

  /**
   * How many times a worker took it over from a lease that expired (a crash, or a failure of the database): past
   * a bound, the import is failed rather than retried forever. A lease given back at a stop does not count.
   */
  @Column({ type: 'integer', default: 0 })
  attempts!: number;
}

/**
 * One line (order) of an import's file and its result: pending (result null, body held sealed), `placed`
 * (order_id, written in the placement's transaction), `valid` (a dry run's good line) or `failed` (errors).
 */
@Entity('order_import_lines')
export class ImportLine {
  @PrimaryColumn({ name: 'import_id', type: 'integer', primaryKeyConstraintName: 'order_import_lines_pkey' })
  @ForeignKey('OrderImport', { name: 'order_import_lines_import_id_fkey', onDelete: 'CASCADE' })
  importId!: number;

  @PrimaryColumn({ type: 'integer', primaryKeyConstraintName: 'order_import_lines_pkey' })
  line!: number;

  /** The placement body as JSON text, sealed (it holds device credentials); cleared once the line has its result. */
  @Column({ type: 'text', nullable: true })
  body!: string | null;

  @Column({ type: 'varchar', length: 8, nullable: true })
  result!: 'placed' | 'valid' | 'failed' | null;

  @Column({ name: 'order_id', type: 'integer', nullable: true })
  orderId!: number | null;

  /** POST /order's errors map for this line. */
  @Column({ type: 'json', nullable: true })
  errors!: Record<string, string[]> | null;
}
