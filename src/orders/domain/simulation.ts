import { canTransition, type OrderState } from '../order-state';

/** The states the sandbox can move a test order to (CONTRACT §4.9). */
export const SIMULATION_TARGETS = [
  'SENT_TO_LOGISTICS',
  'DISPATCHED',
  'DELIVERED',
  'COMPLETED',
  'CANCELLED',
] as const satisfies readonly OrderState[];
export type SimulationTarget = (typeof SIMULATION_TARGETS)[number];

/** What one step records: the fact logistics (or, for a TEST order's cancel, the partner) would report. */
export type SimulationFact = 'sent' | 'dispatched' | 'delivered' | 'completed' | 'cancelled';

export interface SimulationStep {
  from: OrderState;
  to: OrderState;
  fact: SimulationFact;
}

/** The way a real order goes, one fact per step. A test order stands where PLACED would: the sandbox sends it. */
const FORWARD: SimulationStep[] = [
  { from: 'TEST', to: 'SENT_TO_LOGISTICS', fact: 'sent' },
  { from: 'SENT_TO_LOGISTICS', to: 'DISPATCHED', fact: 'dispatched' },
  { from: 'DISPATCHED', to: 'DELIVERED', fact: 'delivered' },
  { from: 'DELIVERED', to: 'COMPLETED', fact: 'completed' },
];

/**
 * The steps from a test order's state to `to`, each one a transition of the state machine (the send from TEST
 * as from PLACED); null when the machine allows no such move (backwards, from a final state, to where it is).
 * CANCELLED is reached in one step: the partner's cancel from TEST, a delivery error later.
 */
export function simulationSteps(from: OrderState, to: SimulationTarget): SimulationStep[] | null {
  const machineFrom = (state: OrderState) => (state === 'TEST' ? 'PLACED' : state);
  if (to === 'CANCELLED') {
    return canTransition(machineFrom(from), 'CANCELLED') ? [{ from, to, fact: 'cancelled' }] : null;
  }
  const start = FORWARD.findIndex((step) => step.from === from);
  const end = FORWARD.findIndex((step) => step.to === to);
  if (start === -1 || end < start) return null;
  const steps = FORWARD.slice(start, end + 1);
  return steps.every((step) => canTransition(machineFrom(step.from), step.to)) ? steps : null;
}
