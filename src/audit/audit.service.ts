import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { Actor } from '../kernel/access/actor';
import { WritePositions } from '../platform/database/write-positions';
import type { AuditEvent } from './audit-event.entity';
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
  constructor(
    private readonly events: AuditRepository,
    private readonly positions: WritePositions,
  ) {}

  /**
   * Records one change; pass the transaction's manager so the row commits or rolls back with the change. Every
   * change made for a company is audited, so this is also where the company's write position is recorded once
   * the change commits (WritePositions): its reads on a replica then wait for the change.
   */
  async record(manager: EntityManager, actor: Actor, entry: AuditEntry): Promise<void> {
    await this.events.insert(manager, { ...this.row(actor, entry), targetId: String(entry.targetId) });
    if (entry.companyId !== null) await this.positions.changed(manager, entry.companyId);
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

  /** Newest first; a read a replica may answer (for every company's writes when no company is asked for). */
  list(filter: AuditFilter, offset: number, limit: number): Promise<NamedAuditEvent[]> {
    return this.events.list(filter, offset, limit);
  }

  /** The newest `limit` changes to one object (an order, say), newest first: one statement. */
  ofTarget(targetType: string, targetId: string | number, limit: number): Promise<AuditEvent[]> {
    return this.events.ofTarget(targetType, String(targetId), limit);
  }
}
