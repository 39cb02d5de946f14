import type { Schema } from '../client.js';
import type { WebhookEvent } from '../webhooks.js';
import { CliError } from './io.js';

export type EventType = WebhookEvent['type'];

/**
 * What `trigger` does so that an event of each type fires for real (CONTRACT §4.9): a new TEST order, placed with
 * POST /order or, for an import's event, through a one-line bulk import, then the partner's own writes or the
 * sandbox's moves that produce the event; or why nothing a partner sends can make it happen. A Record, so a new
 * event type of the document does not compile until it says which.
 */
export const TRIGGERS: Record<EventType, Trigger | { impossible: string }> = {
  'order.placed': { steps: [] },
  'order.updated': { steps: [{ update: { note: 'Updated by restaurant-orders trigger' } }] },
  'order.comment': { steps: [{ comment: 'Commented by restaurant-orders trigger' }] },
  'order.state_changed': { steps: [{ simulate: 'SENT_TO_LOGISTICS' }] },
  'order.detailed_status': { steps: [{ simulate: 'SENT_TO_LOGISTICS' }] },
  'order.tracking': { steps: [{ simulate: 'DISPATCHED' }] },
  // From TEST the sandbox cancels as the partner does; once sent, as logistics does: with a delivery error.
  'order.delivery_error': { steps: [{ simulate: 'SENT_TO_LOGISTICS' }, { simulate: 'CANCELLED' }] },
  'import.completed': { imported: true, steps: [] },
  'import.failed': {
    impossible:
      'an import fails only when the service loses it again and again (every worker running it stops mid-import), ' +
      'which nothing a partner sends can cause; a refused line is a result of a completed import, not a failure',
  },
};

export interface Trigger {
  /** The TEST order is placed through a one-line bulk import (its import.completed fires too). */
  imported?: true;
  steps: TriggerStep[];
}

export type TriggerStep =
  { update: { note: string } } | { comment: string } | { simulate: Schema<'SimulateOrderDto'>['to'] };

export const EVENT_TYPES = Object.keys(TRIGGERS) as EventType[];

/** For `trigger --help`: each event type that cannot be triggered, and why. */
export const UNTRIGGERABLE_HELP = Object.entries(TRIGGERS)
  .flatMap(([type, how]) => ('impossible' in how ? [`\n${type} cannot be triggered: ${how.impossible}.`] : []))
  .join('');

/** An event type the service sends, or a CliError naming the ones it does. */
export function eventType(value: string): EventType {
  if ((EVENT_TYPES as string[]).includes(value)) return value as EventType;
  throw new CliError(`Unknown event type "${value}": use one of ${EVENT_TYPES.join(', ')}.`);
}

/** A comma-separated list of event types (`order.placed,order.tracking`). */
export function eventTypes(value: string): EventType[] {
  const types = value.split(',').map((type) => type.trim());
  if (types.some((type) => type === ''))
    throw new CliError('--events takes event types separated by commas.');
  return [...new Set(types.map(eventType))];
}
