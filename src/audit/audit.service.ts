import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { Actor } from '../kernel/access/actor';
import type { AuditRow } from './audit-row';
import { type AuditFilter, AuditRepository, type NamedAuditEvent } from './audit.repository';

export interface AuditEntry {
  action: string;
  targetType: string;
  targetId: string | number;
  companyId: number | null;
  /** Names only, never values: the trail must not become a copy of secrets. */
  changedFields: string[];
}

@Injectable()
export class AuditService {
  constructor(private readonly events: AuditRepository) {}

  /** Records one change; pass the transaction's manager so the row commits or rolls back with the change. */
  record(manager: EntityManager, actor: Actor, entry: AuditEntry): Promise<void> {
    return this.events.insert(manager, { ...this.row(actor, entry), targetId: String(entry.targetId) });
  }

  /**
   * The row `record` writes, but its target id: for a change whose own statement writes the row and knows the
   * id only once it has inserted the object (a placement).
   */
  row(actor: Actor, entry: Omit<AuditEntry, 'targetId'>): Omit<AuditRow, 'targetId'> {
    return {
      tokenId: actor.tokenId,
      userName: actor.userName,
      requestId: actor.requestId,
      companyId: entry.companyId,
      action: entry.action,
      targetType: entry.targetType,
      changedFields: [...new Set(entry.changedFields)].sort(),
    };
  }

  list(filter: AuditFilter, offset: number, limit: number): Promise<NamedAuditEvent[]> {
    return this.events.list(filter, offset, limit);
  }
}
