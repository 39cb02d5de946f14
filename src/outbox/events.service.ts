import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { fieldError } from '../kernel/domain-error';
import { ReplicaReads } from '../platform/database/replica-reads';
import { eventRowId } from './event-types';
import { EventsRepository } from './events.repository';
import type { EventDraft, StoredEvent } from './event-types';
import type { OutboxEvent } from './outbox-event.entity';

/** The most events one feed page returns (CONTRACT §4.8). */
export const FEED_PAGE_SIZE = 100;

@Injectable()
export class EventsService {
  constructor(
    private readonly events: EventsRepository,
    private readonly reads: ReplicaReads,
  ) {}

  /** Records the events of a change, in the change's transaction (the outbox). */
  publish(manager: EntityManager, companyId: number, subjectId: number, drafts: EventDraft[]): Promise<void> {
    return this.events.insert(manager, companyId, subjectId, drafts);
  }

  /**
   * The values of appendDraftedEventsSql's three arrays for `drafts` (subject types, types, JSON data), for a
   * change whose own statement writes its events; count them with writtenBy.
   */
  draftColumns(drafts: EventDraft[]): [string[], string[], string[]] {
    return this.events.draftColumns(drafts);
  }

  /**
   * Events the change's own statement wrote (a placement writes its order, audit row, event and deliveries in
   * one): only counted, once the change commits.
   */
  writtenBy(manager: EntityManager, drafts: EventDraft[]): void {
    this.events.written(manager, drafts);
  }

  /** The events of the given ids, by id: what a webhook delivery sends, or lists as its type. */
  async byIds(ids: string[]): Promise<Map<string, StoredEvent>> {
    const events = await this.events.findMany([...new Set(ids)]);
    return new Map(events.map((event) => [event.id, event]));
  }

  /**
   * The company's events after `after` (a public event id of the company), oldest first. The position and the
   * page are read in the same place, which a read replica may be (ReplicaReads).
   */
  async feed(companyId: number, after: string | undefined): Promise<OutboxEvent[]> {
    const rowId = after === undefined ? null : eventRowId(after);
    const page = await this.reads.read(companyId, async ({ manager }) => {
      const position = rowId === null ? null : await this.events.positionOf(manager, companyId, rowId);
      if (after !== undefined && !position) return null;
      return this.events.feed(manager, companyId, position, FEED_PAGE_SIZE);
    });
    if (!page) throw fieldError('after', 'No event of yours has this id.');
    return page;
  }

  /** The newest `limit` events about one subject (an order, say), newest first, without their data. */
  ofSubject(subjectType: string, subjectId: number, limit: number): Promise<Omit<StoredEvent, 'data'>[]> {
    return this.events.ofSubject(subjectType, subjectId, limit);
  }

  /** The events about one subject written between two instants (inclusive), oldest first, without their data. */
  ofSubjectBetween(
    subjectType: string,
    subjectId: number,
    from: Date,
    to: Date,
    limit: number,
  ): Promise<Omit<StoredEvent, 'data'>[]> {
    return this.events.ofSubjectBetween(subjectType, subjectId, from, to, limit);
  }
}
