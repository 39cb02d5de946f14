import type { AuditEvent } from './audit-event.entity';

/** An audit row as written: who, from which request, which change to which object. */
export type AuditRow = Omit<AuditEvent, 'id' | 'occurredAt'>;
