import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Between, DataSource, type EntityManager, In } from 'typeorm';
import { type PreparedStatement, PreparedStatements } from '../platform/database/prepared-statements';
import { AppMetrics } from '../platform/metrics/app-metrics';
import { subjectTypeOf } from './event-catalog';
import { appendDraftedEventsSql, deliveriesSql } from './outbox-sql';
import type { EventDraft } from './event-types';
import { OutboxEvent } from './outbox-event.entity';

/** A feed position: the writing transaction, then the row id (see OutboxEvent.transactionId). */
export interface FeedPosition {
  transactionId: string;
  id: string;
}

/** The events of one change and their pending deliveries (see `insert`), prepared: one text whatever the number of events. */
const INSERT_EVENTS: PreparedStatement = {
  name: 'events_insert',
  text: `WITH inserted AS (
       ${appendDraftedEventsSql({
         companyId: '$1::integer',
         subjectId: '$2::integer',
         subjectTypes: '$3::varchar[]',
         types: '$4::varchar[]',
         data: '$5::json[]',
       })}
     )
     ${deliveriesSql('inserted', '$1')}`,
};

@Injectable()
export class EventsRepository {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly metrics: AppMetrics,
    private readonly prepared: PreparedStatements,
  ) {}

  /**
   * Writes the events of one change to one subject (each draft's type names the subject type) and, in the same
   * statement, one pending delivery per active webhook endpoint of the company: the outbox commits or rolls
   * back with the change.
   */
  async insert(
    manager: EntityManager,
    companyId: number,
    subjectId: number,
    drafts: EventDraft[],
  ): Promise<void> {
    if (drafts.length === 0) return;
    await this.prepared.rowsOn(manager, INSERT_EVENTS, [companyId, subjectId, ...this.draftColumns(drafts)]);
    this.written(manager, drafts);
  }

  /** The drafts as appendDraftedEventsSql's arrays: subject types, types, JSON data. */
  draftColumns(drafts: EventDraft[]): [string[], string[], string[]] {
    return [
      drafts.map((draft) => subjectTypeOf(draft.type)),
      drafts.map((draft) => draft.type),
      drafts.map((draft) => JSON.stringify(draft.data)),
    ];
  }

  /** Events a change has written, counted by the metrics once its transaction commits (or at once, outside one). */
  written(manager: EntityManager, drafts: EventDraft[]): void {
    this.metrics.countOnCommit(manager, drafts);
  }

  /** The events of the given ids, in one statement (events_pkey). */
  findMany(ids: string[]): Promise<OutboxEvent[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return this.dataSource.manager.findBy(OutboxEvent, { id: In(ids) });
  }

  /** Where an event of the company stands in the feed; null for an unknown or foreign event. */
  async positionOf(manager: EntityManager, companyId: number, id: string): Promise<FeedPosition | null> {
    const event = await manager.findOne(OutboxEvent, {
      select: { id: true, transactionId: true },
      where: { id, companyId },
    });
    return event ? { transactionId: event.transactionId, id: event.id } : null;
  }

  /**
   * The company's events after a position, oldest first (events_company_feed_idx). Only events of
   * transactions older than every transaction still running are read, so one that commits late cannot be
   * passed over by a reader that already moved beyond it.
   */
  feed(
    manager: EntityManager,
    companyId: number,
    after: FeedPosition | null,
    limit: number,
  ): Promise<OutboxEvent[]> {
    const query = manager
      .createQueryBuilder(OutboxEvent, 'e')
      .where('e.company_id = :companyId', { companyId })
      .andWhere('e.transaction_id < pg_snapshot_xmin(pg_current_snapshot())::text::bigint');
    if (after) {
      query.andWhere(
        '(e.transaction_id, e.id) > (CAST(:afterTransaction AS bigint), CAST(:afterId AS bigint))',
        {
          afterTransaction: after.transactionId,
          afterId: after.id,
        },
      );
    }
    return query.orderBy('e.transaction_id', 'ASC').addOrderBy('e.id', 'ASC').limit(limit).getMany();
  }

  /** The newest `limit` events about one subject, newest first (events_subject_idx). */
  ofSubject(subjectType: string, subjectId: number, limit: number): Promise<OutboxEvent[]> {
    return this.dataSource.manager.find(OutboxEvent, {
      select: { id: true, type: true, createdAt: true },
      where: { subjectType, subjectId },
      order: { id: 'DESC' },
      take: limit,
    });
  }

  /** The events about one subject written between two instants (inclusive), oldest first (events_subject_idx). */
  ofSubjectBetween(
    subjectType: string,
    subjectId: number,
    from: Date,
    to: Date,
    limit: number,
  ): Promise<OutboxEvent[]> {
    return this.dataSource.manager.find(OutboxEvent, {
      select: { id: true, type: true, createdAt: true },
      where: { subjectType, subjectId, createdAt: Between(from, to) },
      order: { id: 'ASC' },
      take: limit,
    });
  }
}
