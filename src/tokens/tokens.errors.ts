import { DomainError } from '../kernel/domain-error';

export class TokenNotFoundError extends DomainError {
  constructor() {
    super('TOKEN_NOT_FOUND', 'Token not found.');
  }
}
