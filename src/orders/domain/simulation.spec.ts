import { type SimulationTarget, simulationSteps } from './simulation';
import type { OrderState } from '../order-state';

const facts = (from: OrderState, to: SimulationTarget) => simulationSteps(from, to)?.map((step) => step.fact);

describe('the sandbox plan (CONTRACT §4.9)', () => {
  it('takes a test order the whole way, one fact per state', () => {
    expect(facts('TEST', 'COMPLETED')).toEqual(['sent', 'dispatched', 'delivered', 'completed']);
    expect(simulationSteps('TEST', 'DISPATCHED')).toEqual([
      { from: 'TEST', to: 'SENT_TO_LOGISTICS', fact: 'sent' },
      { from: 'SENT_TO_LOGISTICS', to: 'DISPATCHED', fact: 'dispatched' },
    ]);
  });

  it('goes on from where an earlier simulation left the order', () => {
    expect(facts('SENT_TO_LOGISTICS', 'DELIVERED')).toEqual(['dispatched', 'delivered']);
    expect(facts('DELIVERED', 'COMPLETED')).toEqual(['completed']);
  });

  it('cancels in one step while the state machine allows it', () => {
    expect(facts('TEST', 'CANCELLED')).toEqual(['cancelled']);
    expect(facts('SENT_TO_LOGISTICS', 'CANCELLED')).toEqual(['cancelled']);
    expect(facts('DISPATCHED', 'CANCELLED')).toEqual(['cancelled']);
  });

  it.each([
    ['DELIVERED', 'CANCELLED'],
    ['COMPLETED', 'CANCELLED'],
    ['CANCELLED', 'CANCELLED'],
    ['CANCELLED', 'DELIVERED'],
    ['DELIVERED', 'DISPATCHED'],
    ['DISPATCHED', 'DISPATCHED'],
    ['COMPLETED', 'COMPLETED'],
    ['PLACED', 'SENT_TO_LOGISTICS'],
  ] as [OrderState, SimulationTarget][])('refuses %s → %s', (from, to) => {
    expect(simulationSteps(from, to)).toBeNull();
  });
});
