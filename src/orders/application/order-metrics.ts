import { Injectable } from '@nestjs/common';
import { Counter } from 'prom-client';
import { AppMetrics } from '../../platform/metrics/app-metrics';

/**
 * The order series of CONTRACT §8 (docs/operations/metrics.md), on the service's registry: placements and
 * state transitions, counted from the events a change writes once its transaction commits.
 */
@Injectable()
export class OrderMetrics {
  constructor(metrics: AppMetrics) {
    const placed = new Counter({
      name: 'orders_placed_total',
      help: 'Orders placed (committed), by whether they are test orders',
      labelNames: ['test'] as const,
      registers: [metrics.registry],
    });
    const transitions = new Counter({
      name: 'order_state_transitions_total',
      help: 'Orders moved from one state to another (committed)',
      labelNames: ['from', 'to'] as const,
      registers: [metrics.registry],
    });
    metrics.whenCommitted((drafts) => {
      for (const draft of drafts) {
        if (draft.type === 'order.placed') placed.inc({ test: String(draft.data.test) });
        if (draft.type === 'order.state_changed')
          transitions.inc({ from: String(draft.data.previous_state), to: String(draft.data.state) });
      }
    });
  }
}
