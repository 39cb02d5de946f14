import { DomainError } from '../common/domain-error';
import type { OrderState } from './order-state';

export class OrderNotFoundError extends DomainError {
  constructor() {
    super('ORDER_NOT_FOUND', 'Order not found.');
  }
}

/** CONTRACT §4.6: only PLACED and TEST orders can be updated. */
export class OrderNotEditableError extends DomainError {
  constructor(state: OrderState, action: 'updated' | 'cancelled') {
    const reason = state === 'CANCELLED' ? 'it has been cancelled' : 'it has been sent to logistics';
    super('ORDER_NOT_EDITABLE', `Order can no longer be ${action}: ${reason}.`);
  }
}
