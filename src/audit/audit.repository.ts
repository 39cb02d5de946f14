import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager, type FindOptionsWhere } from 'typeorm';
import { AuditEvent } from './audit-event.entity';
import { ReplicaReads } from '../platform/database/replica-reads';
import type { AuditRow } from './audit-row';

export interface AuditFilter {
  companyId?: number;
  tokenId?: number;
}

@Injectable()
export class AuditRepository {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly reads: ReplicaReads,
  ) {}

  async insert(manager: EntityManager, event: AuditRow): Promise<void> {
    await manager.insert(AuditEvent, event);
  }

  /** Newest first; each filter is served by an index that starts with it (then id). */
  list(filter: AuditFilter, offset: number, limit: number): Promise<AuditEvent[]> {
    const where: FindOptionsWhere<AuditEvent> = {};
    if (filter.companyId !== undefined) where.companyId = filter.companyId;
    if (filter.tokenId !== undefined) where.tokenId = filter.tokenId;
    return this.reads.read(filter.companyId ?? null, ({ manager }) =>
      manager.find(AuditEvent, { where, order: { id: 'DESC' }, skip: offset, take: limit }),
    );
  }

  /** The newest `limit` changes to one object, newest first (audit_events_target_idx). */
  ofTarget(targetType: string, targetId: string, limit: number): Promise<AuditEvent[]> {
    return this.dataSource.manager.find(AuditEvent, {
      where: { targetType, targetId },
      order: { id: 'DESC' },
      take: limit,
    });
  }
}
