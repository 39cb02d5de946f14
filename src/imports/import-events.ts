import { declareEventTypes } from '../outbox/event-catalog';
import type { EventDraft } from '../outbox/event-types';
import { ImportCompletedEvent, ImportFailedEvent } from './dto/import-event.response';
import type { OrderImport } from './order-import.entities';

/** What an import event is about, in the outbox. */
export const IMPORT_SUBJECT_TYPE = 'import';

const IMPORT_EVENTS = declareEventTypes(IMPORT_SUBJECT_TYPE, {
  'import.completed': ImportCompletedEvent,
  'import.failed': ImportFailedEvent,
});

type ImportEventType = (typeof IMPORT_EVENTS.types)[number];

declare module '../outbox/event-types' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface DeclaredEventTypes extends Record<ImportEventType, true> {}
}

/** The event an import writes when it finishes, in the transaction that finishes it. */
export const importFinished = (
  done: Pick<OrderImport, 'id' | 'state' | 'dryRun' | 'total' | 'placed' | 'failed'>,
): EventDraft<ImportEventType> =>
  IMPORT_EVENTS.draft(done.state === 'failed' ? 'import.failed' : 'import.completed', {
    import_id: done.id,
    state: done.state,
    dry_run: done.dryRun,
    total: done.total,
    placed: done.placed,
    failed: done.failed,
  });
