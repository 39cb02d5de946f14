import { nextState, type OrderState } from '../order-state';
import { OrderStateConflictError } from '../orders.errors';

/**
 * What the facts of the fulfilment (CONTRACT §3, §7) do to an order's state: each derives it through the state
 * machine, never backwards, and refuses (409) a fact that the state no longer allows.
 */

/** A tracking: a delivery date delivers the order, else a dispatch date dispatches it; a later one never moves it back. */
export function stateAfterTracking(
  state: OrderState,
  tracking: { dispatchDate: Date | null; deliveryDate: Date | null },
): OrderState {
  const target = tracking.deliveryDate ? 'DELIVERED' : tracking.dispatchDate ? 'DISPATCHED' : state;
  return nextState(state, target) ?? state;
}

/** A delivery error: Comment and Information are recorded; Cancel also cancels an order that is not delivered. */
export function stateAfterDeliveryError(state: OrderState, resolution: string): OrderState {
  if (resolution !== 'Cancel') return state;
  return (
    nextState(state, 'CANCELLED') ??
    refuse(`The order is ${state}: a delivery error can no longer cancel it.`)
  );
}

/** The completion date moves a DELIVERED order to COMPLETED; before delivery it is refused. */
export function stateAfterCompletion(state: OrderState, completed: boolean): OrderState {
  if (!completed) return state;
  return (
    nextState(state, 'COMPLETED') ?? refuse(`The order is ${state}: it can be completed only once delivered.`)
  );
}

function refuse(message: string): never {
  throw new OrderStateConflictError(message);
}
