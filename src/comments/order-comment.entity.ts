import {
  Column,
  CreateDateColumn,
  Entity,
  ForeignKey,
  Index,
  PrimaryGeneratedColumn,
  UpdateDateColumn,
} from 'typeorm';

/** A partner user's comment on an order: one per user (token user_name) and order, replaced on repost. */
@Entity('order_comments')
@Index('order_comments_order_user_key', ['orderId', 'userName'], { unique: true })
export class OrderComment {
  @PrimaryGeneratedColumn({ primaryKeyConstraintName: 'order_comments_pkey' })
  id!: number;

  @Column({ name: 'order_id', type: 'integer' })
  @ForeignKey('Order', { name: 'order_comments_order_id_fkey', onDelete: 'CASCADE' })
  orderId!: number;

  @Column({ name: 'user_name', type: 'varchar', length: 255 })
  userName!: string;

  @Column({ name: 'partner_comment', type: 'text' })
  partnerComment!: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
