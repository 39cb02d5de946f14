import { DomainError } from '../kernel/domain-error';

export class ProductNotFoundError extends DomainError {
  constructor() {
    super('PRODUCT_NOT_FOUND', 'Product not found.');
  }
}
