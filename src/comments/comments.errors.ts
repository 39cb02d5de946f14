import { declareErrorCodes, DomainError, type FieldErrors } from '../kernel/domain-error';

declareErrorCodes({
  COMMENT_VALIDATION_FAILED: {
    status: 400,
    // Spec §4.5's own shape: each field maps to one string, not an array.
    body: ({ message, fieldErrors }) => ({
      message,
      errors: Object.fromEntries(Object.entries(fieldErrors ?? {}).map(([field, [first]]) => [field, first])),
    }),
  },
  COMMENT_ORDER_NOT_FOUND: { status: 404, body: ({ message }) => ({ success: false, message }) },
});

/** Spec §4.5's own bodies: `{"message": "Validation failed", "errors": {"partner_comment": "..."}}`. */
export class CommentValidationError extends DomainError {
  constructor(fieldErrors: FieldErrors) {
    super('COMMENT_VALIDATION_FAILED', 'Validation failed', fieldErrors);
  }
}

/** Spec §4.5: `{"success": false, "message": "Order not found."}`. */
export class CommentOrderNotFoundError extends DomainError {
  constructor() {
    super('COMMENT_ORDER_NOT_FOUND', 'Order not found.');
  }
}
