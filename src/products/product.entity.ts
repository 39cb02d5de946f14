import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';
import { CONTAINS_FILTER_INDEX } from '../kernel/contains-filter';

@Entity('products')
@Index('products_active_idx', ['active', 'id'])
@Index('products_name_trgm_idx', ['name'], CONTAINS_FILTER_INDEX)
export class Product {
  @PrimaryGeneratedColumn({ primaryKeyConstraintName: 'products_pkey' })
  id!: number;

  @Column({ type: 'varchar', length: 255 })
  name!: string;

  /** Inactive products are hidden from partners and cannot be ordered; existing orders keep them. */
  @Column({ type: 'boolean', default: true })
  active!: boolean;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
