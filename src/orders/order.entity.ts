import {
  Check,
  Column,
  Entity,
  ForeignKey,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryGeneratedColumn,
} from 'typeorm';
import { SEALED_MAX_LENGTH } from '../kernel/sealed-secret';
import { ORDER_STATES, ORDER_TYPES, type OrderState, type OrderType } from './order-state';
import { oneOf } from '../kernel/check-constraint';

/**
 * An order of spec §2.1, with its company (from the placing token) and its state. Every list filter has an
 * index that starts with company_id.
 */
@Entity('orders')
@Check('orders_order_type_known', oneOf('order_type', ORDER_TYPES))
@Check('orders_state_known', oneOf('state', ORDER_STATES))
@Index('orders_company_created_idx', ['companyId', 'createdAt', 'id'])
@Index('orders_company_type_created_idx', ['companyId', 'orderType', 'createdAt', 'id'])
@Index('orders_company_state_created_idx', ['companyId', 'state', 'createdAt', 'id'])
@Index('orders_company_updated_idx', ['companyId', 'updatedAt', 'id'])
@Index('orders_original_order_id_idx', ['originalOrderId'])
@Index('orders_state_created_idx', ['state', 'createdAt', 'id'])
@Index('orders_created_idx', ['createdAt', 'id'])
export class Order {
  @PrimaryGeneratedColumn({ primaryKeyConstraintName: 'orders_pkey' })
  id!: number;

  @Column({ name: 'company_id', type: 'integer' })
  @ForeignKey('Company', { name: 'orders_company_id_fkey', onDelete: 'RESTRICT' })
  companyId!: number;

  /** The site when the order was placed (upper(country), else the company's): the prefix of order_ref. */
  @Column({ type: 'varchar', length: 2 })
  site!: string;

  @Column({ type: 'varchar', length: 20 })
  state!: OrderState;

  @Column({ name: 'order_type', type: 'varchar', length: 8 })
  orderType!: OrderType;

  @Column({ name: 'original_order_id', type: 'integer', nullable: true })
  originalOrderId!: number | null;

  @ManyToOne(() => Order, { onDelete: 'RESTRICT' })
  @JoinColumn({ name: 'original_order_id', foreignKeyConstraintName: 'orders_original_order_id_fkey' })
  originalOrder?: Order;

  @Column({ name: 'first_name', type: 'varchar', length: 255 })
  firstName!: string;

  @Column({ name: 'last_name', type: 'varchar', length: 255 })
  lastName!: string;

  @Column({ type: 'varchar', length: 255 })
  consignee!: string;

  @Column({ type: 'varchar', length: 255 })
  email!: string;

  @Column({ type: 'varchar', length: 255 })
  phone!: string;

  @Column({ type: 'varchar', length: 255 })
  zip!: string;

  @Column({ type: 'varchar', length: 255 })
  city!: string;

  @Column({ type: 'varchar', length: 255 })
  street!: string;

  @Column({ name: 'house_number', type: 'varchar', length: 255 })
  houseNumber!: string;

  @Column({ type: 'varchar', length: 255, nullable: true })
  floor!: string | null;

  @Column({ type: 'varchar', length: 255, nullable: true })
  door!: string | null;

  @Column({ name: 'opening_hours', type: 'varchar', length: 255, nullable: true })
  openingHours!: string | null;

  /** Lower case ISO 3166-1 alpha-2, or null. */
  @Column({ type: 'varchar', length: 2, nullable: true })
  country!: string | null;

  @Column({ name: 'product_id', type: 'integer' })
  @ForeignKey('Product', { name: 'orders_product_id_fkey', onDelete: 'RESTRICT' })
  productId!: number;

  @Column({ name: 'product_variation_id', type: 'integer', nullable: true })
  @ForeignKey('ProductVariation', { name: 'orders_product_variation_id_fkey', onDelete: 'RESTRICT' })
  productVariationId!: number | null;

  /**
   * Device credentials of the restaurant, sealed (AES-256-GCM, DeviceCredentials): returned as the spec
   * requires, never logged or audited. Wide enough for the sealed form of 255 characters.
   */
  @Column({ type: 'varchar', length: SEALED_MAX_LENGTH })
  login!: string;

  @Column({ type: 'varchar', length: SEALED_MAX_LENGTH })
  password!: string;

  @Column({ type: 'boolean', default: false })
  test!: boolean;

  @Column({ type: 'varchar', length: 255, nullable: true })
  note!: string | null;

  @Column({ name: 'corrected_order_id', type: 'varchar', length: 255, nullable: true })
  correctedOrderId!: string | null;

  @Column({ name: 'merchant_id', type: 'varchar', length: 255 })
  merchantId!: string;

  @Column({ name: 'oms_user_id', type: 'integer', nullable: true })
  omsUserId!: number | null;

  @Column({ type: 'boolean', nullable: true })
  retail!: boolean | null;

  @Column({ type: 'boolean', nullable: true })
  dinein!: boolean | null;

  @Column({ name: 'shop_number', type: 'varchar', length: 255, nullable: true })
  shopNumber!: string | null;

  @Column({ type: 'text', nullable: true })
  details!: string | null;

  @Column({ name: 'serial_number', type: 'varchar', length: 255, nullable: true })
  serialNumber!: string | null;

  @Column({ name: 'final_completion_date', type: 'timestamptz', nullable: true })
  finalCompletionDate!: Date | null;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt!: Date;

  /** Moves with every change to the order or to its trackings, statuses, errors and comments. */
  @Column({ name: 'updated_at', type: 'timestamptz', default: () => 'now()' })
  updatedAt!: Date;

  /** Counts those changes: the order's ETag, which If-Match compares on writes (optimistic concurrency). */
  @Column({ type: 'integer', default: 1 })
  version!: number;
}
