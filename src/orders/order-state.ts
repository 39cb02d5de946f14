export const ORDER_TYPES = ['REGULAR', 'EXCHANGE', 'RETURN'] as const;
export type OrderType = (typeof ORDER_TYPES)[number];

/** CONTRACT §3. Transitions between them are issue "Logistics and the order lifecycle"'s state machine. */
export const ORDER_STATES = [
  'PLACED',
  'TEST',
  'SENT_TO_LOGISTICS',
  'DISPATCHED',
  'DELIVERED',
  'COMPLETED',
  'CANCELLED',
] as const;
export type OrderState = (typeof ORDER_STATES)[number];

/** Only these states accept a partner's update (and cancel). */
export const EDITABLE_STATES: readonly OrderState[] = ['PLACED', 'TEST'];

export const isEditable = (state: OrderState): boolean => EDITABLE_STATES.includes(state);

/** CONTRACT §3: the states each state may move to. Anything not listed is refused. */
export const ORDER_TRANSITIONS: Readonly<Record<OrderState, readonly OrderState[]>> = {
  PLACED: ['SENT_TO_LOGISTICS', 'CANCELLED'],
  TEST: ['CANCELLED'],
  SENT_TO_LOGISTICS: ['DISPATCHED', 'DELIVERED', 'CANCELLED'],
  DISPATCHED: ['DELIVERED', 'CANCELLED'],
  DELIVERED: ['COMPLETED'],
  COMPLETED: [],
  CANCELLED: [],
};

/** States in which logistics may record trackings, statuses, errors, serial number and completion. */
export const WITH_LOGISTICS: readonly OrderState[] = [
  'SENT_TO_LOGISTICS',
  'DISPATCHED',
  'DELIVERED',
  'COMPLETED',
];

export const canTransition = (from: OrderState, to: OrderState): boolean =>
  ORDER_TRANSITIONS[from].includes(to);

/**
 * The state a fact moves an order to: `to` when the table allows it, `from` when the order is already at or
 * past it on the way (facts never move an order back), else null (a refused transition).
 */
export function nextState(from: OrderState, to: OrderState): OrderState | null {
  if (from === to || canTransition(from, to)) return to;
  return isPast(from, to) ? from : null;
}

/** True when `state` is a later step than `target` on the way PLACED → SENT → DISPATCHED → DELIVERED → COMPLETED. */
function isPast(state: OrderState, target: OrderState): boolean {
  const path: OrderState[] = ['PLACED', 'SENT_TO_LOGISTICS', 'DISPATCHED', 'DELIVERED', 'COMPLETED'];
  return path.includes(state) && path.includes(target) && path.indexOf(state) > path.indexOf(target);
}
