/**
 * The declared event types as TypeScript knows them: each publishing module adds its own by declaration merging
 * (`declare module`), so code that lists any event's type (a webhook delivery's) stays typed.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface DeclaredEventTypes {}
export type DeclaredEventType = Extract<keyof DeclaredEventTypes, string>;

/** What only a declaration hands out (see EventDraft). */
declare const DECLARED: unique symbol;

/**
 * An event about to be written: its type and its `data`, kept small and never carrying secrets. Only the
 * `draft` of a declaration (declareEventTypes) makes one, so publishing a type no module declared does not
 * compile.
 */
export interface EventDraft<Type extends string = string> {
  readonly type: Type;
  readonly data: Record<string, unknown>;
  readonly [DECLARED]: true;
}

/** An event as the outbox stored it: what the feed lists and a webhook delivery sends. */
export interface StoredEvent {
  id: string;
  type: DeclaredEventType;
  data: Record<string, unknown>;
  createdAt: Date;
}

/** The public id of an event: `evt_` and its row id. */
export const publicEventId = (id: string): string => `evt_${id}`;

/** The row id a public event id names, or null when it is not one. */
export function eventRowId(publicId: string): string | null {
  const match = /^evt_([1-9]\d{0,17})$/.exec(publicId);
  return match ? match[1] : null;
}
