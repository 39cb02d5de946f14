import { Column, CreateDateColumn, Entity, ForeignKey, Index, PrimaryGeneratedColumn } from 'typeorm';
import type { DeclaredEventType } from './event-types';

/**
 * Something that happened to a subject (an order, CONTRACT §5), written in the same transaction as the change:
 * the outbox the webhook dispatcher delivers from, and the partner's events feed. The types are the ones the
 * publishing modules declare (event-catalog.ts); the table names none.
 */
@Entity('events')
@Index('events_company_feed_idx', ['companyId', 'transactionId', 'id'])
@Index('events_subject_idx', ['subjectId', 'subjectType', 'id'])
export class OutboxEvent {
  /** bigint: TypeORM hands it over as a string. The public id is `evt_<id>`. */
  @PrimaryGeneratedColumn({ type: 'bigint', primaryKeyConstraintName: 'events_pkey' })
  id!: string;

  @Column({ name: 'company_id', type: 'integer' })
  @ForeignKey('Company', { name: 'events_company_id_fkey', onDelete: 'CASCADE' })
  companyId!: number;

  /** What the event is about: `order` and the order's id, say. */
  @Column({ name: 'subject_type', type: 'varchar', length: 32, default: 'order' })
  subjectType!: string;

  /**
   * The subject's id. The column keeps its first name, `order_id`, and `subject_type` its default, so that
   * instances of the version before the generic outbox keep writing events while its migration runs and until
   * they are replaced (CONTRACT §9); renaming it is a change for two releases.
   */
  @Column({ name: 'order_id', type: 'integer' })
  subjectId!: number;

  @Column({ type: 'varchar', length: 32 })
  type!: DeclaredEventType;

  /** json, not jsonb: the keys keep the order they were written in, in the feed and in webhook bodies. */
  @Column({ type: 'json' })
  data!: Record<string, unknown>;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  /**
   * The id of the transaction that wrote the event (pg_current_xact_id()). The feed reads in this order and
   * only below the oldest transaction still running, so an event that commits late is never skipped.
   */
  @Column({ name: 'transaction_id', type: 'bigint' })
  transactionId!: string;
}
