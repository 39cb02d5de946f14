import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryGeneratedColumn,
  UpdateDateColumn,
} from 'typeorm';
import { Order } from './order.entity';

/** A parcel of the order as the fulfilment partner reports it; one row per tracking number. */
@Entity('trackings')
@Index('trackings_order_number_key', ['orderId', 'trackingNumber'], { unique: true })
@Index('trackings_company_number_idx', ['companyId', 'trackingNumber'])
@Index('trackings_company_delivery_idx', ['companyId', 'deliveryDate'])
export class Tracking {
  @PrimaryGeneratedColumn({ primaryKeyConstraintName: 'trackings_pkey' })
  id!: number;

  @Column({ name: 'order_id', type: 'integer' })
  orderId!: number;

  @ManyToOne(() => Order, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'order_id', foreignKeyConstraintName: 'trackings_order_id_fkey' })
  order?: Order;

  /** The order's company, repeated so the partner filters on trackings have an index starting with it. */
  @Column({ name: 'company_id', type: 'integer' })
  companyId!: number;

  @Column({ name: 'tracking_number', type: 'varchar', length: 255 })
  trackingNumber!: string;

  @Column({ type: 'text', nullable: true })
  status!: string | null;

  @Column({ name: 'status_date', type: 'timestamptz', nullable: true })
  statusDate!: Date | null;

  @Column({ name: 'dispatch_date', type: 'timestamptz', nullable: true })
  dispatchDate!: Date | null;

  @Column({ name: 'delivery_date', type: 'timestamptz', nullable: true })
  deliveryDate!: Date | null;

  @Column({ name: 'tracking_link', type: 'text', nullable: true })
  trackingLink!: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}

/** One detailed status report; the order shows the latest by status_date. */
@Entity('detailed_statuses')
@Index('detailed_statuses_order_date_idx', ['orderId', 'statusDate', 'id'])
export class DetailedStatus {
  @PrimaryGeneratedColumn({ primaryKeyConstraintName: 'detailed_statuses_pkey' })
  id!: number;

  @Column({ name: 'order_id', type: 'integer' })
  orderId!: number;

  @ManyToOne(() => Order, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'order_id', foreignKeyConstraintName: 'detailed_statuses_order_id_fkey' })
  order?: Order;

  @Column({ type: 'text' })
  status!: string;

  @Column({ name: 'status_date', type: 'timestamptz' })
  statusDate!: Date;

  @Column({ type: 'text', nullable: true })
  location!: string | null;

  @Column({ type: 'text', nullable: true })
  description!: string | null;

  @Column({ name: 'tracking_number', type: 'varchar', length: 255, nullable: true })
  trackingNumber!: string | null;

  @Column({ name: 'tracking_link', type: 'text', nullable: true })
  trackingLink!: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}

@Entity('delivery_errors')
@Index('delivery_errors_order_idx', ['orderId', 'id'])
export class DeliveryError {
  @PrimaryGeneratedColumn({ primaryKeyConstraintName: 'delivery_errors_pkey' })
  id!: number;

  @Column({ name: 'order_id', type: 'integer' })
  orderId!: number;

  @ManyToOne(() => Order, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'order_id', foreignKeyConstraintName: 'delivery_errors_order_id_fkey' })
  order?: Order;

  @Column({ type: 'text' })
  status!: string;

  @Column({ type: 'timestamptz' })
  date!: Date;

  /** Comment, Information or Cancel. */
  @Column({ type: 'varchar', length: 16 })
  resolution!: string;

  @Column({ type: 'text', nullable: true })
  comment!: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
