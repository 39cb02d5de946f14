import { declareErrorCodes, DomainError, fieldError } from '../kernel/domain-error';

declareErrorCodes({
  IDEMPOTENCY_KEY_IN_USE: { status: 409 },
  IDEMPOTENCY_KEY_REUSED: { status: 422 },
});

/** The first request with this key has not finished: a repeat now would run it twice. */
export class IdempotencyKeyInUseError extends DomainError {
  constructor() {
    super(
      'IDEMPOTENCY_KEY_IN_USE',
      'A request with this Idempotency-Key is still being processed: retry once it has finished.',
    );
  }
}

/** The key was already used with another request (body or route): replaying its response would mislead. */
export class IdempotencyKeyReusedError extends DomainError {
  constructor() {
    super(
      'IDEMPOTENCY_KEY_REUSED',
      'This Idempotency-Key was already used with a different request: use a new key for a new request.',
    );
  }
}

export const invalidIdempotencyKey = () =>
  fieldError('Idempotency-Key', 'The Idempotency-Key header must be 1 to 255 visible ASCII characters.');
