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
import { Order } from '../orders/order.entity';

/** A partner user's comment on an order: one per user (token user_name) and order, replaced on repost. */
@Entity('order_comments')
@Index('order_comments_order_user_key', ['orderId', 'userName'], { unique: true })
export class OrderComment {
  @PrimaryGeneratedColumn({ primaryKeyConstraintName: 'order_comments_pkey' })
  id!: number;

  @Column({ name: 'order_id', type: 'integer' })
  orderId!: number;

  @ManyToOne(() => Order, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'order_id', foreignKeyConstraintName: 'order_comments_order_id_fkey' })
  order?: Order;

  @Column({ name: 'user_name', type: 'varchar', length: 255 })
  userName!: string;

  @Column({ name: 'partner_comment', type: 'text' })
  partnerComment!: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
