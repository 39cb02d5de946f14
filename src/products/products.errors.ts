import { declareErrorCodes, DomainError } from '../kernel/domain-error';

declareErrorCodes({ PRODUCT_NOT_FOUND: { status: 404 } });

export class ProductNotFoundError extends DomainError {
  constructor() {
    super('PRODUCT_NOT_FOUND', 'Product not found.');
  }
}
