import { DomainError, type FieldErrors } from '../kernel/domain-error';

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
