import { OrderStateConflictError } from '../orders.errors';
import { stateAfterCompletion, stateAfterDeliveryError, stateAfterTracking } from './logistics-facts';

const at = new Date('2026-11-22T08:00:00Z');

describe('the facts of the fulfilment', () => {
  it('delivers an order with a delivery date, dispatches it with only a dispatch date', () => {
    expect(stateAfterTracking('SENT_TO_LOGISTICS', { dispatchDate: at, deliveryDate: at })).toBe('DELIVERED');
    expect(stateAfterTracking('SENT_TO_LOGISTICS', { dispatchDate: at, deliveryDate: null })).toBe(
      'DISPATCHED',
    );
    expect(stateAfterTracking('SENT_TO_LOGISTICS', { dispatchDate: null, deliveryDate: null })).toBe(
      'SENT_TO_LOGISTICS',
    );
  });

  it('never moves an order back with a later tracking', () => {
    expect(stateAfterTracking('DELIVERED', { dispatchDate: at, deliveryDate: null })).toBe('DELIVERED');
    expect(stateAfterTracking('COMPLETED', { dispatchDate: at, deliveryDate: at })).toBe('COMPLETED');
  });

  it('cancels with a Cancel delivery error until delivered, and refuses it after', () => {
    expect(stateAfterDeliveryError('DISPATCHED', 'Cancel')).toBe('CANCELLED');
    expect(stateAfterDeliveryError('DISPATCHED', 'Information')).toBe('DISPATCHED');
    expect(() => stateAfterDeliveryError('DELIVERED', 'Cancel')).toThrow(OrderStateConflictError);
  });

  it('completes a delivered order, and refuses to complete one not delivered', () => {
    expect(stateAfterCompletion('DELIVERED', true)).toBe('COMPLETED');
    expect(stateAfterCompletion('DISPATCHED', false)).toBe('DISPATCHED');
    expect(() => stateAfterCompletion('DISPATCHED', true)).toThrow(OrderStateConflictError);
  });
});
