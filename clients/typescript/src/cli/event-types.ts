import type { Schema } from '../client.js';
import type { WebhookEvent } from '../webhooks.js';
import { CliError } from './io.js';

export type EventType = WebhookEvent['type'];

/**
 * What `trigger` does to a new TEST order so that an event of each type fires (CONTRACT §4.9): the placement
 * itself, then the partner's own write or the sandbox's move that produces it. A Record, so a new event type of
 * the document does not compile until it says how to make it happen.
 */
export const TRIGGERS: Record<EventType, TriggerStep[]> = {
  'order.placed': [],
  'order.updated': [{ update: { note: 'Updated by restaurant-orders trigger' } }],
  'order.comment': [{ comment: 'Commented by restaurant-orders trigger' }],
  'order.state_changed': [{ simulate: 'SENT_TO_LOGISTICS' }],
  'order.detailed_status': [{ simulate: 'SENT_TO_LOGISTICS' }],
  'order.tracking': [{ simulate: 'DISPATCHED' }],
  // From TEST the sandbox cancels as the partner does; once sent, as logistics does: with a delivery error.
  'order.delivery_error': [{ simulate: 'SENT_TO_LOGISTICS' }, { simulate: 'CANCELLED' }],
};

export type TriggerStep =
  { update: { note: string } } | { comment: string } | { simulate: Schema<'SimulateOrderDto'>['to'] };

export const EVENT_TYPES = Object.keys(TRIGGERS) as EventType[];

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
