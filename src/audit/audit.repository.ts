import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import { AuditEvent } from './audit-event.entity';
import { ReplicaReads } from '../platform/database/replica-reads';
import type { AuditRow } from './audit-row';

export interface NamedAuditEvent {
  event: AuditEvent;
  /** The name of the event's company, today; null for an event of no company. */
  companyName: string | null;
}

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

  /**
   * Newest first, each with its company's name, in one statement (the companies table is read, never written,
   * by its primary key); each filter is served by an index that starts with it (then id). A read a replica may
   * answer.
   */
  list(filter: AuditFilter, offset: number, limit: number): Promise<NamedAuditEvent[]> {
    return this.reads.read(filter.companyId ?? null, async ({ manager }) => {
      const query = manager
        .createQueryBuilder(AuditEvent, 'event')
        .leftJoin('companies', 'company', 'company.id = event.company_id')
        .addSelect('company.name', 'company_name')
        .orderBy('event.id', 'DESC')
        .offset(offset)
        .limit(limit);
      if (filter.companyId !== undefined) query.andWhere('event.company_id = :companyId', filter);
      if (filter.tokenId !== undefined) query.andWhere('event.token_id = :tokenId', filter);
      // No join of entities: one raw row per entity, in the same order.
      const { entities, raw } = await query.getRawAndEntities<{ company_name: string | null }>();
      return entities.map((event, index) => ({ event, companyName: raw[index].company_name }));
    });
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
