import { declareErrorCodes, DomainError } from '../kernel/domain-error';

declareErrorCodes({ TOKEN_NOT_FOUND: { status: 404 }, TOKEN_NOT_ROLLABLE: { status: 409 } });

export class TokenNotFoundError extends DomainError {
  constructor() {
    super('TOKEN_NOT_FOUND', 'Token not found.');
  }
}

/** A revoked or expired token gets no new secret: it would not work either. */
export class TokenNotRollableError extends DomainError {
  constructor(reason: 'been revoked' | 'expired') {
    super('TOKEN_NOT_ROLLABLE', `Token cannot be rolled: it has ${reason}. Issue a new one.`);
  }
}
