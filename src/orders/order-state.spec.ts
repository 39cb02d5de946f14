import { canTransition, nextState, ORDER_STATES, ORDER_TRANSITIONS, type OrderState } from './order-state';

describe('the order state machine (CONTRACT §3)', () => {
  it.each([
    ['PLACED', 'SENT_TO_LOGISTICS'],
    ['PLACED', 'CANCELLED'],
    ['TEST', 'CANCELLED'],
    ['SENT_TO_LOGISTICS', 'DISPATCHED'],
    ['SENT_TO_LOGISTICS', 'DELIVERED'],
    ['DISPATCHED', 'DELIVERED'],
    ['DELIVERED', 'COMPLETED'],
    ['SENT_TO_LOGISTICS', 'CANCELLED'],
    ['DISPATCHED', 'CANCELLED'],
  ] as [OrderState, OrderState][])('allows %s → %s', (from, to) => {
    expect(canTransition(from, to)).toBe(true);
  });

  it('allows nothing else', () => {
    const allowed = Object.values(ORDER_TRANSITIONS).reduce((sum, targets) => sum + targets.length, 0);
    expect(allowed).toBe(9);
    expect(canTransition('TEST', 'SENT_TO_LOGISTICS')).toBe(false);
    expect(canTransition('DELIVERED', 'CANCELLED')).toBe(false);
    expect(canTransition('COMPLETED', 'CANCELLED')).toBe(false);
    expect(canTransition('CANCELLED', 'PLACED')).toBe(false);
    expect(canTransition('SENT_TO_LOGISTICS', 'COMPLETED')).toBe(false);
  });

  it('has no way out of COMPLETED or CANCELLED', () => {
    expect(ORDER_TRANSITIONS.COMPLETED).toEqual([]);
    expect(ORDER_TRANSITIONS.CANCELLED).toEqual([]);
    for (const state of ORDER_STATES) expect(canTransition(state, 'PLACED')).toBe(false);
  });

  it('lets a later fact leave an order where it is, never move it back', () => {
    expect(nextState('DELIVERED', 'DISPATCHED')).toBe('DELIVERED');
    expect(nextState('COMPLETED', 'DELIVERED')).toBe('COMPLETED');
    expect(nextState('DISPATCHED', 'DISPATCHED')).toBe('DISPATCHED');
    expect(nextState('SENT_TO_LOGISTICS', 'DISPATCHED')).toBe('DISPATCHED');
  });

  it('refuses what the table does not allow', () => {
    expect(nextState('DELIVERED', 'CANCELLED')).toBeNull();
    expect(nextState('SENT_TO_LOGISTICS', 'COMPLETED')).toBeNull();
    expect(nextState('TEST', 'SENT_TO_LOGISTICS')).toBeNull();
    expect(nextState('CANCELLED', 'DELIVERED')).toBeNull();
  });
});
