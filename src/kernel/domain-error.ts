/**
 * The stable codes services throw. The exception filter is the only place that turns a code into an
 * HTTP status and body (see error-responses.ts).
 */
export type ErrorCode =
  | 'VALIDATION_FAILED'
  | 'BAD_REQUEST'
  | 'MALFORMED_JSON'
  | 'NESTED_TOO_DEEPLY'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | 'REQUEST_TIMEOUT'
  | 'PAYLOAD_TOO_LARGE'
  | 'PRECONDITION_FAILED'
  | 'RANGE_NOT_SATISFIABLE'
  | 'ROUTE_NOT_FOUND'
  | 'UNAUTHENTICATED'
  | 'FORBIDDEN'
  | 'RATE_LIMITED'
  | 'SERVICE_UNAVAILABLE'
  | 'COMPANY_NOT_FOUND'
  | 'TOKEN_NOT_FOUND'
  | 'PRODUCT_NOT_FOUND'
  | 'WEBHOOK_NOT_FOUND'
  | 'DELIVERY_NOT_FOUND'
  | 'DELIVERY_NOT_RETRYABLE'
  | 'ORDER_NOT_FOUND'
  | 'ORDER_CONFLICT'
  | 'ORDER_CHANGED'
  | 'COMMENT_VALIDATION_FAILED'
  | 'COMMENT_ORDER_NOT_FOUND'
  | 'IDEMPOTENCY_KEY_IN_USE'
  | 'IDEMPOTENCY_KEY_REUSED';

export type FieldErrors = Record<string, string[]>;

export class DomainError extends Error {
  constructor(
    readonly code: ErrorCode,
    message?: string,
    readonly fieldErrors?: FieldErrors,
  ) {
    super(message ?? code);
    this.name = 'DomainError';
  }
}

/** A request that failed validation: `errors` maps each failing field to its messages. */
export class ValidationFailedError extends DomainError {
  constructor(fieldErrors: FieldErrors) {
    super('VALIDATION_FAILED', 'Bad request.', fieldErrors);
  }
}

/** A 400 naming one field, for rules a DTO cannot check alone (they need the database or other fields). */
export function fieldError(field: string, message: string): ValidationFailedError {
  return new ValidationFailedError({ [field]: [message] });
}
