import { Injectable, type OnModuleInit } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import type { EntityManager } from 'typeorm';
import type { Actor } from '../kernel/access/actor';
import { AuditService } from '../audit/audit.service';
import { groupBy } from '../kernel/group-by';
import { Notifications } from '../platform/database/notifications';
import { toProductResponse } from './dto/product.response';
import type { Product } from './product.entity';
import type { ProductWithVariations } from './product-with-variations';
import { ProductNotFoundError } from './products.errors';
import { PRODUCTS_CHANGED_CHANNEL, type ProductFilter, ProductsRepository } from './products.repository';
import { UnitOfWork } from '../platform/database/unit-of-work';

export interface NewProduct {
  name: string;
  variations?: { name: string }[];
}

/**
 * How long an instance trusts a product it looked up to validate an order. A change through this instance is
 * seen at once; one made through another instance (deactivation, a new variation) within this bound. A product
 * that was not found or is inactive is never remembered, so a new product can be ordered at once.
 */
export const PRODUCT_CACHE_MS = 5_000;

/** Pages of the active products an instance keeps (GET /product): a catalogue of a few dozen is one or two. */
const CATALOGUE_PAGES = 100;

@Injectable()
export class ProductsService implements OnModuleInit {
  private readonly orderable = new LRUCache<number, ProductWithVariations>({
    max: 1_000,
    ttl: PRODUCT_CACHE_MS,
  });
  /**
   * The active products by page (`offset:limit`), served from memory: every product write, on any instance,
   * notifies on commit and every instance forgets them. While notifications are not arriving (the listening
   * connection is down), pages are read from the database.
   */
  private readonly catalogue = new LRUCache<string, Promise<string[]>>({
    max: CATALOGUE_PAGES,
  });

  constructor(
    private readonly unitOfWork: UnitOfWork,
    private readonly products: ProductsRepository,
    private readonly audit: AuditService,
    private readonly notifications: Notifications,
  ) {}

  onModuleInit(): Promise<void> {
    return this.notifications.subscribe(PRODUCTS_CHANGED_CHANNEL, {
      notified: () => this.forget(),
      missed: () => this.forget(),
    });
  }

  create(actor: Actor, input: NewProduct): Promise<ProductWithVariations> {
    return this.write((manager) => this.insert(manager, actor, input));
  }

  /** Creates every product of the file or none. */
  import(actor: Actor, inputs: NewProduct[]): Promise<ProductWithVariations[]> {
    return this.write(async (manager) => {
      const created: ProductWithVariations[] = [];
      for (const input of inputs) created.push(await this.insert(manager, actor, input));
      return created;
    });
  }

  update(
    actor: Actor,
    id: number,
    changes: { name?: string; active?: boolean },
  ): Promise<ProductWithVariations> {
    return this.write(async (manager) => {
      const product = await this.products.findForUpdate(manager, id);
      if (!product) throw new ProductNotFoundError();
      const changed = (Object.keys(changes) as (keyof typeof changes)[]).filter(
        (field) => changes[field] !== undefined && changes[field] !== product[field],
      );
      if (changed.length > 0) {
        await this.products.update(
          manager,
          id,
          Object.fromEntries(changed.map((field) => [field, changes[field]])),
        );
        await this.record(manager, actor, 'product.updated', id, changed);
      }
      return this.load(id, manager);
    });
  }

  addVariation(actor: Actor, id: number, name: string): Promise<ProductWithVariations> {
    return this.write(async (manager) => {
      if (!(await this.products.findForUpdate(manager, id))) throw new ProductNotFoundError();
      await this.products.insertVariations(manager, id, [name]);
      await this.record(manager, actor, 'product.variation_added', id, ['variations']);
      return this.load(id, manager);
    });
  }

  /**
   * A page of active products with their variations, each as its response's JSON text: from memory, else two
   * statements whatever the page size. Kept as text, a page costs a request no walk and no serialisation.
   */
  listActiveJson(offset: number, limit: number): Promise<string[]> {
    if (!this.notifications.listening) return this.readActiveJson(offset, limit);
    const key = `${offset}:${limit}`;
    let page = this.catalogue.get(key);
    if (!page) {
      page = this.readActiveJson(offset, limit);
      this.catalogue.set(key, page);
      page.catch(() => this.catalogue.get(key) === page && this.catalogue.delete(key));
    }
    return page;
  }

  named(names: string[]): Promise<Product[]> {
    return this.products.named(names);
  }

  /** A page of every product, inactive ones too, with their variations: two statements whatever the page size. */
  async listAll(filter: ProductFilter, offset: number, limit: number): Promise<ProductWithVariations[]> {
    return this.withVariations(await this.products.listAll(filter, offset, limit));
  }

  /** The product an order names, when it exists and is active, with its variations. */
  async findOrderable(id: number, manager?: EntityManager): Promise<ProductWithVariations | null> {
    const cached = this.orderable.get(id);
    if (cached) return cached;
    const product = await this.products.findById(id, manager);
    if (!product?.active) return null;
    const orderable = { product, variations: await this.products.variationsOf([id], manager) };
    this.orderable.set(id, orderable);
    return orderable;
  }

  /** A product write in one transaction, announced to every instance; this one forgets its products at once. */
  private write<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.unitOfWork
      .transaction(async (manager) => {
        const result = await work(manager);
        await this.products.notifyChanged(manager);
        return result;
      })
      .finally(() => this.forget());
  }

  private forget(): void {
    this.orderable.clear();
    this.catalogue.clear();
  }

  private async readActiveJson(offset: number, limit: number): Promise<string[]> {
    const rows = await this.withVariations(await this.products.listActive(offset, limit));
    return rows.map((row) => JSON.stringify(toProductResponse(row)));
  }

  private async insert(
    manager: EntityManager,
    actor: Actor,
    input: NewProduct,
  ): Promise<ProductWithVariations> {
    const product = await this.products.insert(manager, input.name);
    const variations = await this.products.insertVariations(
      manager,
      product.id,
      (input.variations ?? []).map((variation) => variation.name),
    );
    await this.record(
      manager,
      actor,
      'product.created',
      product.id,
      variations.length > 0 ? ['name', 'variations'] : ['name'],
    );
    return { product, variations };
  }

  private async load(id: number, manager: EntityManager): Promise<ProductWithVariations> {
    const product = await this.products.findById(id, manager);
    if (!product) throw new ProductNotFoundError();
    return { product, variations: await this.products.variationsOf([id], manager) };
  }

  private async withVariations(products: Product[]): Promise<ProductWithVariations[]> {
    const variations = groupBy(
      await this.products.variationsOf(products.map((product) => product.id)),
      (row) => row.productId,
    );
    return products.map((product) => ({ product, variations: variations.get(product.id) ?? [] }));
  }

  private record(
    manager: EntityManager,
    actor: Actor,
    action: string,
    productId: number,
    changedFields: string[],
  ) {
    return this.audit.record(manager, actor, {
      action,
      targetType: 'product',
      targetId: productId,
      companyId: null,
      changedFields,
    });
  }
}
