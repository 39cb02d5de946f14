/** The event types of CONTRACT §5. */
export const EVENT_TYPES = [
  'order.placed',
  'order.updated',
  'order.comment',
  'order.state_changed',
  'order.tracking',
  'order.detailed_status',
  'order.delivery_error',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** The public id of an event: `evt_` and its row id. */
export const publicEventId = (id: string): string => `evt_${id}`;

/** The row id a public event id names, or null when it is not one. */
export function eventRowId(publicId: string): string | null {
  const match = /^evt_([1-9]\d{0,17})$/.exec(publicId);
  return match ? match[1] : null;
}
