import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { UnitOfWork } from '../platform/database/unit-of-work';
import { DataSource, type EntityManager, In, IsNull } from 'typeorm';
import { type DeliveryStatus, WebhookAttempt, WebhookDelivery } from './webhook-delivery.entity';
import { WebhookEndpoint } from './webhook-endpoint.entity';
import { containsIgnoringCase } from '../kernel/contains-filter';

export interface EndpointFilter {
  companyId?: number;
  url?: string;
}

/** A delivery a dispatcher has claimed, with what it needs to send it. */
export interface ClaimedDelivery {
  id: string;
  /** Pending, or failed (given up) when an admin retries it by hand. */
  status: DeliveryStatus;
  /** Claimed by an admin's retry rather than by a dispatcher. */
  byHand: boolean;
  attemptCount: number;
  createdAt: Date;
  endpointId: number;
  url: string;
  secret: string;
  eventId: string;
}

interface ClaimedRow {
  id: string;
  status: DeliveryStatus;
  attempt_count: number;
  created_at: Date;
  endpoint_id: number;
  url: string;
  secret: string;
  event_id: string;
}

/** No attempt of the delivery is being sent (an expired lease is one whose claimant died). */
const NOT_IN_FLIGHT = '(in_flight_until IS NULL OR in_flight_until <= now())';

/** Until when a claim holds: $2 ms from now. */
const LEASE_END = 'now() + make_interval(secs => $2::double precision / 1000)';

/**
 * Puts the deliveries of the `due` CTE (the statement defines it, locking them) in flight until the lease
 * ends, one more attempt each, sets `alsoSet` (SQL), and returns what sending them takes.
 */
const claim = (alsoSet = '') => `UPDATE webhook_deliveries d
       SET in_flight_until = ${LEASE_END}, attempt_count = d.attempt_count + 1${alsoSet}
       FROM due, webhook_endpoints w
       WHERE d.id = due.id AND w.id = d.endpoint_id
       RETURNING d.id, d.status, d.attempt_count, d.created_at, w.id AS endpoint_id, w.url, w.secret, d.event_id`;

function toClaimedDelivery(row: ClaimedRow, byHand: boolean): ClaimedDelivery {
  return {
    id: row.id,
    status: row.status,
    byHand,
    attemptCount: row.attempt_count,
    createdAt: row.created_at,
    endpointId: row.endpoint_id,
    url: row.url,
    secret: row.secret,
    eventId: row.event_id,
  };
}

/** How a claimed delivery ends this attempt. */
export type DeliveryOutcome =
  | { kind: 'succeeded' }
  /** Tried again after `delayMs`, or on the schedule it had when null (a hand retry's failure). */
  | { kind: 'retry'; delayMs: number | null }
  | { kind: 'failed' }
  | { kind: 'gone'; reason: string };

@Injectable()
export class WebhooksRepository {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly unitOfWork: UnitOfWork,
  ) {}

  insertEndpoint(
    manager: EntityManager,
    values: Pick<WebhookEndpoint, 'companyId' | 'url' | 'secret'>,
  ): Promise<WebhookEndpoint> {
    return manager.save(manager.create(WebhookEndpoint, values));
  }

  findEndpoint(
    id: number,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<WebhookEndpoint | null> {
    return manager.findOneBy(WebhookEndpoint, { id });
  }

  /**
   * Endpoints not deleted, by id (webhook_endpoints_company_idx when filtered by company; the URL filter is
   * checked on those rows: a company has a handful of endpoints).
   */
  listEndpoints(filter: EndpointFilter, offset: number, limit: number): Promise<WebhookEndpoint[]> {
    return this.dataSource.manager.find(WebhookEndpoint, {
      where: {
        deletedAt: IsNull(),
        ...(filter.companyId === undefined ? {} : { companyId: filter.companyId }),
        ...(filter.url === undefined ? {} : { url: containsIgnoringCase(filter.url, 'url_contains') }),
      },
      order: { id: 'ASC' },
      skip: offset,
      take: limit,
    });
  }

  /** Stops an endpoint: nothing more is queued for it, and what was waiting is cancelled. */
  async deactivate(
    manager: EntityManager,
    id: number,
    values: Partial<Pick<WebhookEndpoint, 'disabledReason' | 'deletedAt'>>,
  ): Promise<void> {
    await manager.update(WebhookEndpoint, { id }, { ...values, active: false });
    await manager.update(WebhookDelivery, { endpointId: id, status: 'pending' }, { status: 'cancelled' });
  }

  /** An endpoint's deliveries, newest first (webhook_deliveries_endpoint_idx). */
  listDeliveries(endpointId: number, offset: number, limit: number): Promise<WebhookDelivery[]> {
    return this.dataSource.manager.find(WebhookDelivery, {
      where: { endpointId },
      order: { id: 'DESC' },
      skip: offset,
      take: limit,
    });
  }

  /** Every attempt of the given deliveries, oldest first, in one statement. */
  attemptsOf(deliveryIds: string[]): Promise<WebhookAttempt[]> {
    if (deliveryIds.length === 0) return Promise.resolve([]);
    return this.dataSource.manager.find(WebhookAttempt, {
      where: { deliveryId: In(deliveryIds) },
      order: { deliveryId: 'ASC', id: 'ASC' },
    });
  }

  /**
   * Claims up to `limit` due deliveries for this dispatcher: rows another dispatcher or a hand retry is
   * claiming are skipped (SKIP LOCKED), as are rows in flight; each claimed row is in flight for `leaseMs`, so
   * no one else sends it meanwhile, and its next attempt moves to the lease's end (it is not waiting to be
   * sent, for the outbox metrics), so it is due again by itself if this process dies.
   */
  async claimDue(limit: number, leaseMs: number): Promise<ClaimedDelivery[]> {
    // For UPDATE … RETURNING, TypeORM answers [rows, affected count].
    const [rows]: [ClaimedRow[], number] = await this.dataSource.query(
      `WITH due AS (
         SELECT id FROM webhook_deliveries
         WHERE status = 'pending' AND next_attempt_at <= now() AND ${NOT_IN_FLIGHT}
         ORDER BY next_attempt_at
         LIMIT $1
         FOR UPDATE SKIP LOCKED
       )
       ${claim(`, next_attempt_at = ${LEASE_END}`)}`,
      [limit, leaseMs],
    );
    return rows.map((row) => toClaimedDelivery(row, false));
  }

  /**
   * Claims one delivery an admin retries, in the caller's transaction (which has locked it), unless an
   * attempt of it is in flight: null then. The claim is in the database, so it holds across instances. Its
   * next automatic attempt stays where it was.
   */
  async claimForRetry(manager: EntityManager, id: string, leaseMs: number): Promise<ClaimedDelivery | null> {
    const [rows]: [ClaimedRow[], number] = await manager.query(
      `WITH due AS (SELECT id FROM webhook_deliveries WHERE id = $1 AND ${NOT_IN_FLIGHT} FOR UPDATE)
       ${claim()}`,
      [id, leaseMs],
    );
    return rows.length === 0 ? null : toClaimedDelivery(rows[0], true);
  }

  /** One delivery of one endpoint, locked for the caller's transaction. */
  findDeliveryForUpdate(
    manager: EntityManager,
    endpointId: number,
    id: string,
  ): Promise<WebhookDelivery | null> {
    return manager.findOne(WebhookDelivery, {
      where: { id, endpointId },
      lock: { mode: 'pessimistic_write' },
    });
  }

  /** One delivery of an endpoint. */
  findDelivery(endpointId: number, id: string): Promise<WebhookDelivery | null> {
    return this.dataSource.manager.findOneBy(WebhookDelivery, { id, endpointId });
  }

  /**
   * Records one attempt and where the delivery goes from it, in one transaction, and ends its flight. A
   * success also counts for a given-up delivery retried by hand; a delivery cancelled meanwhile stays so.
   */
  recordAttempt(
    delivery: ClaimedDelivery,
    attempt: Pick<WebhookAttempt, 'attemptedAt' | 'statusCode' | 'durationMs' | 'error'>,
    outcome: DeliveryOutcome,
  ): Promise<void> {
    return this.unitOfWork.transaction(async (manager) => {
      await manager.insert(WebhookAttempt, { ...attempt, deliveryId: delivery.id });
      await manager.update(WebhookDelivery, { id: delivery.id }, { inFlightUntil: null });
      const pending = { id: delivery.id, status: 'pending' as const };
      switch (outcome.kind) {
        case 'succeeded':
          await manager.update(
            WebhookDelivery,
            { id: delivery.id, status: In(['pending', 'failed']) },
            { status: 'succeeded', deliveredAt: () => 'now()' },
          );
          return;
        case 'retry':
          if (outcome.delayMs === null) return;
          await manager.update(WebhookDelivery, pending, {
            nextAttemptAt: new Date(Date.now() + outcome.delayMs),
          });
          return;
        case 'failed':
          await manager.update(WebhookDelivery, pending, { status: 'failed' });
          return;
        case 'gone':
          await manager.update(WebhookDelivery, pending, { status: 'failed' });
          await this.deactivate(manager, delivery.endpointId, { disabledReason: outcome.reason });
      }
    });
  }
}
