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
