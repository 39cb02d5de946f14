import { Check, Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { CONTAINS_FILTER_INDEX } from '../kernel/contains-filter';

@Entity('companies')
@Check('companies_site_format', `site ~ '^[A-Z]{2}$'`)
@Index('companies_name_trgm_idx', ['name'], CONTAINS_FILTER_INDEX)
export class Company {
  @PrimaryGeneratedColumn({ primaryKeyConstraintName: 'companies_pkey' })
  id!: number;

  @Column({ type: 'varchar', length: 255 })
  name!: string;

  /** Market code, upper case (SK, CZ, PL, HU, AT, ...): governs the note/details length rule of its orders. */
  @Column({ type: 'varchar', length: 2 })
  site!: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
