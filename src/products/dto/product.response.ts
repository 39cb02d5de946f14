import type { ProductWithVariations } from '../product-with-variations';

export class VariationResponse {
  /** @example 4 */
  id!: number;
  /** @example "Black" */
  name!: string;
}

/** A product as partners see it (spec §2.7). */
export class ProductResponse {
  /** @example 2 */
  id!: number;
  /** @example "POS terminal" */
  name!: string;
  /** Orders for a product with variations must name one of them. */
  variations!: VariationResponse[];
}

/** A product as administrators see it: also whether it is active. */
export class AdminProductResponse extends ProductResponse {
  /** @example true */
  active!: boolean;
}

export function toProductResponse({ product, variations }: ProductWithVariations): ProductResponse {
  return {
    id: product.id,
    name: product.name,
    variations: variations.map((variation) => ({ id: variation.id, name: variation.name })),
  };
}

export function toAdminProductResponse(entry: ProductWithVariations): AdminProductResponse {
  return { ...toProductResponse(entry), active: entry.product.active };
}
