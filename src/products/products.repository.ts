import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager, In, Raw } from 'typeorm';
import { ProductVariation } from './product-variation.entity';
import { containsIgnoringCase } from '../kernel/contains-filter';
import { Product } from './product.entity';

export interface ProductFilter {
  name?: string;
  active?: boolean;
}

/** PostgreSQL channel on which every product write tells each instance to forget the products it keeps. */
export const PRODUCTS_CHANGED_CHANNEL = 'products_changed';

@Injectable()
export class ProductsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  insert(manager: EntityManager, name: string): Promise<Product> {
    return manager.save(manager.create(Product, { name }));
  }

  insertVariations(manager: EntityManager, productId: number, names: string[]): Promise<ProductVariation[]> {
    if (names.length === 0) return Promise.resolve([]);
    return manager.save(names.map((name) => manager.create(ProductVariation, { productId, name })));
  }

  findForUpdate(manager: EntityManager, id: number): Promise<Product | null> {
    return manager.findOne(Product, { where: { id }, lock: { mode: 'pessimistic_write' } });
  }

  async update(
    manager: EntityManager,
    id: number,
    changes: Partial<Pick<Product, 'name' | 'active'>>,
  ): Promise<void> {
    await manager.update(Product, { id }, changes);
  }

  /** Delivered to every instance when the writing transaction commits. */
  async notifyChanged(manager: EntityManager): Promise<void> {
    await manager.query('SELECT pg_notify($1, $2)', [PRODUCTS_CHANGED_CHANNEL, '']);
  }

  findById(id: number, manager: EntityManager = this.dataSource.manager): Promise<Product | null> {
    return manager.findOneBy(Product, { id });
  }

  /** Active products by id: served by products_active_idx. */
  listActive(offset: number, limit: number): Promise<Product[]> {
    return this.dataSource.manager.find(Product, {
      where: { active: true },
      order: { id: 'ASC' },
      skip: offset,
      take: limit,
    });
  }

  /** The products with one of `names`, but for case: names are not unique (the CLI warns about a namesake). */
  named(names: string[]): Promise<Product[]> {
    return this.dataSource.manager.find(Product, {
      where: {
        name: Raw(
          (column) => `lower(${column}) IN (SELECT lower(given) FROM unnest(CAST(:names AS text[])) given)`,
          {
            names,
          },
        ),
      },
      order: { id: 'ASC' },
    });
  }

  /**
   * Every product, inactive ones too, by id: served by products_pkey, or for a name filter of 3 characters or
   * more by products_name_trgm_idx; the other filters are checked on those rows (see docs/performance.md).
   */
  listAll(filter: ProductFilter, offset: number, limit: number): Promise<Product[]> {
    return this.dataSource.manager.find(Product, {
      where: {
        ...(filter.name === undefined ? {} : { name: containsIgnoringCase(filter.name, 'name_contains') }),
        ...(filter.active === undefined ? {} : { active: filter.active }),
      },
      order: { id: 'ASC' },
      skip: offset,
      take: limit,
    });
  }

  /** The variations of several products in one statement. */
  variationsOf(
    productIds: number[],
    manager: EntityManager = this.dataSource.manager,
  ): Promise<ProductVariation[]> {
    if (productIds.length === 0) return Promise.resolve([]);
    return manager.find(ProductVariation, {
      where: { productId: In(productIds) },
      order: { productId: 'ASC', id: 'ASC' },
    });
  }
}
