import type { Type } from '@nestjs/common';
import { ApiExtraModels } from '@nestjs/swagger';
import { EventListResponse } from './dto/event-feed.response';
import type { EventDraft } from './event-types';

/**
 * Every event type the modules publish, in the order they declared them (the OpenAPI document lists them so):
 * a module declares its own at load, so the outbox names none and a new type needs no migration.
 */
export const EVENT_TYPES: string[] = [];

const declared = new Map<string, { subjectType: string; schema: Type }>();

/** A module's declared event types, and the one way to make an event of them for the outbox. */
export interface DeclaredEvents<T extends string> {
  types: T[];
  /** An event of a declared type, ready for EventsService.publish. */
  draft<Of extends T>(type: Of, data: Record<string, unknown>): EventDraft<Of>;
}

/**
 * Declares the event types of one subject (`order`), each with its schema for the document: the Standard
 * Webhooks payload (`id`, `type`, `timestamp`, `data`, as toEventResponse writes it).
 */
export function declareEventTypes<T extends string>(
  subjectType: string,
  schemas: Record<T, Type>,
): DeclaredEvents<T> {
  const types = Object.keys(schemas) as T[];
  for (const type of types) {
    if (declared.has(type)) throw new Error(`The event type ${type} is declared twice.`);
    const schema = schemas[type];
    declared.set(type, { subjectType, schema });
    EVENT_TYPES.push(type);
    ApiExtraModels(schema)(EventListResponse);
  }
  return { types, draft: (type, data) => ({ type, data }) as EventDraft<typeof type> };
}

/** A declared event type's subject and schema; an undeclared type is a programming error. */
function declarationOf(type: string): { subjectType: string; schema: Type } {
  const declaration = declared.get(type);
  if (!declaration) throw new Error(`The event type ${type} was never declared.`);
  return declaration;
}

/** The subject type of a declared event type (`order` for `order.placed`). */
export const subjectTypeOf = (type: string): string => declarationOf(type).subjectType;

/** The schema of one declared event type: the Standard Webhooks payload, in the feed and in webhook bodies. */
export const eventSchemaOf = (type: string): Type => declarationOf(type).schema;
