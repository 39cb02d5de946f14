import type { ProductVariation } from './product-variation.entity';
import type { Product } from './product.entity';

/** A product with its variations: what the catalogue lists and an order line is checked against. */
export interface ProductWithVariations {
  product: Product;
  variations: ProductVariation[];
}
