import {
  Check,
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryGeneratedColumn,
} from 'typeorm';
import { Company } from '../companies/company.entity';
import { Order } from '../orders/order.entity';
import { EVENT_TYPES, type EventType } from './event-types';
import { oneOf } from '../kernel/check-constraint';

/**
 * Something that happened to an order (CONTRACT §5), written in the same transaction as the change: the
 * outbox the webhook dispatcher delivers from, and the partner's events feed.
 */
@Entity('events')
@Check('events_type_known', oneOf('type', EVENT_TYPES))
@Index('events_company_feed_idx', ['companyId', 'transactionId', 'id'])
export class OrderEvent {
  /** bigint: TypeORM hands it over as a string. The public id is `evt_<id>`. */
  @PrimaryGeneratedColumn({ type: 'bigint', primaryKeyConstraintName: 'events_pkey' })
  id!: string;

  @Column({ name: 'company_id', type: 'integer' })
  companyId!: number;

  @ManyToOne(() => Company, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'company_id', foreignKeyConstraintName: 'events_company_id_fkey' })
  company?: Company;

  @Column({ name: 'order_id', type: 'integer' })
  orderId!: number;

  @ManyToOne(() => Order, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'order_id', foreignKeyConstraintName: 'events_order_id_fkey' })
  order?: Order;

  @Column({ type: 'varchar', length: 32 })
  type!: EventType;

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
