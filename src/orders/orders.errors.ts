import { declareErrorCodes, DomainError } from '../kernel/domain-error';
import type { OrderState } from './order-state';

declareErrorCodes({
  ORDER_NOT_FOUND: { status: 404 },
  ORDER_CONFLICT: { status: 409 },
  ORDER_CHANGED: { status: 412 },
});

export class OrderNotFoundError extends DomainError {
  constructor() {
    super('ORDER_NOT_FOUND', 'Order not found.');
  }
}

/** CONTRACT §4.6–4.7: a partner may update or cancel only PLACED and TEST orders. */
export class OrderNotEditableError extends DomainError {
  constructor(state: OrderState, action: 'updated' | 'cancelled') {
    const reason = state === 'CANCELLED' ? 'it has been cancelled' : 'it has been sent to logistics';
    super('ORDER_CONFLICT', `Order can no longer be ${action}: ${reason}.`);
  }
}

/** A fact the order's state does not allow (CONTRACT §3), e.g. a Cancel after delivery. */
export class OrderStateConflictError extends DomainError {
  constructor(message: string) {
    super('ORDER_CONFLICT', message);
  }
}

/** If-Match named a version the order no longer has: someone changed it since the caller read it. */
export class OrderChangedError extends DomainError {
  constructor(current: number) {
    super(
      'ORDER_CHANGED',
      `The order has changed since you read it (it is now at version ${current}): read it again.`,
    );
  }
}

/**
 * A fact's statement found the order at another version than the one it was decided on: something changed the
 * order in between. Never reaches a client: the caller decides again under the order's lock.
 */
export class OrderMovedError extends Error {
  constructor() {
    super('The order changed between its read and the write of a fact.');
  }
}
