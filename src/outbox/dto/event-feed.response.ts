import { ApiProperty, getSchemaPath } from '@nestjs/swagger';
import { type DeclaredEventType, publicEventId, type StoredEvent } from '../event-types';

/** One event as the feed lists it and a webhook delivers it. */
export interface EventResponse {
  id: string;
  type: DeclaredEventType;
  timestamp: string;
  data: Record<string, unknown>;
}

/**
 * The name of the schema of any one event, told apart by its `type` (the document's finishing pass adds it,
 * since the generator names only classes): a generated client has one type for the feed's items and a
 * webhook's body. The name predates other subjects than orders; the document keeps it.
 */
export const ANY_EVENT_SCHEMA_NAME = 'OrderEvent';

/** The event schemas are added to it as the modules declare their types (see event-catalog.ts). */
export class EventListResponse {
  /** Oldest first, at most 100. Ask again with `after` set to the last id until the list comes back empty. */
  @ApiProperty({ type: 'array', items: { $ref: getSchemaPath(ANY_EVENT_SCHEMA_NAME) } })
  data!: EventResponse[];
}

export function toEventResponse(event: StoredEvent): EventResponse {
  return {
    id: publicEventId(event.id),
    type: event.type,
    timestamp: event.createdAt.toISOString(),
    data: event.data,
  };
}
