import { declareErrorCodes, DomainError } from '../kernel/domain-error';

declareErrorCodes({ TOKEN_NOT_FOUND: { status: 404 } });

export class TokenNotFoundError extends DomainError {
  constructor() {
    super('TOKEN_NOT_FOUND', 'Token not found.');
  }
}
