import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { UnitOfWork } from '../platform/database/unit-of-work';
import { DataSource, type EntityManager, In, IsNull } from 'typeorm';
import { type DeliveryStatus, WebhookAttempt, WebhookDelivery } from './webhook-delivery.entity';
import { WebhookEndpoint } from './webhook-endpoint.entity';
import { containsIgnoringCase } from '../kernel/contains-filter';
import { NOT_IN_FLIGHT } from './delivery-queue';

export interface EndpointFilter {
  companyId?: number;
  url?: string;
}

/** A delivery of an event as an order's timeline shows it: its endpoint, where it stands and its last try. */
export interface EventDeliveryRow {
  id: string;
  event_id: string;
  endpoint_id: number;
  endpoint_url: string;
  status: DeliveryStatus;
  attempt_count: number;
  /** The last attempt's columns, all null when none was made yet. */
  attempted_at: Date | null;
  status_code: number | null;
  duration_ms: number | null;
  error: string | null;
}

/** What a delivery log lists (CONTRACT §6): every given condition holds. */
export interface DeliveryFilter {
  status?: DeliveryStatus;
  /** The event's row id (the number of `evt_<id>`). */
  eventId?: string;
  eventType?: string;
}

/** An attempt's columns without what was sent and what came back. */
const OUTCOME_COLUMNS = {
  id: true,
  deliveryId: true,
  attemptedAt: true,
  statusCode: true,
  durationMs: true,
  error: true,
} as const;

/** Notified with an endpoint's id when it stops receiving (deleted, or gone): its attempts in flight end. */
export const ENDPOINT_STOPPED_CHANNEL = 'webhook_endpoint_stopped';

/** The first key of the advisory lock that serialises one company's registrations (the second: its id). */
const ENDPOINTS_LOCK_CLASS = 1_919_903_823;

/** Whose endpoints a caller reaches: a partner its company's only, an admin every company's (none named). */
export interface EndpointScope {
  companyId?: number;
}

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

  /**
   * An endpoint that is not deleted, of the scope's company when it names one: a deleted endpoint, and another
   * company's, are missing.
   */
  findEndpoint(
    id: number,
    manager: EntityManager = this.dataSource.manager,
    scope: EndpointScope = {},
  ): Promise<WebhookEndpoint | null> {
    return manager.findOneBy(WebhookEndpoint, { id, deletedAt: IsNull(), ...scope });
  }

  /** The same, locked until the transaction ends: settings and rotations of one endpoint are serialised. */
  findEndpointForUpdate(
    manager: EntityManager,
    id: number,
    scope: EndpointScope,
  ): Promise<WebhookEndpoint | null> {
    return manager.findOne(WebhookEndpoint, {
      where: { id, deletedAt: IsNull(), ...scope },
      lock: { mode: 'pessimistic_write' },
    });
  }

  /** An endpoint as a write of the caller's transaction left it, deleted or not. */
  async reloadEndpoint(manager: EntityManager, id: number): Promise<WebhookEndpoint> {
    return (await manager.findOneBy(WebhookEndpoint, { id }))!;
  }

  /**
   * How many endpoints the company has that are not deleted (webhook_endpoints_company_idx), counted under a lock
   * of the company's endpoints held until the transaction ends: registrations of one company are serialised, so
   * two at once never pass a limit together.
   */
  async countEndpointsLocked(manager: EntityManager, companyId: number): Promise<number> {
    await manager.query('SELECT pg_advisory_xact_lock($1, $2)', [ENDPOINTS_LOCK_CLASS, companyId]);
    const [{ count }] = await manager.query<{ count: number }[]>(
      'SELECT count(*)::integer AS count FROM webhook_endpoints WHERE company_id = $1 AND deleted_at IS NULL',
      [companyId],
    );
    return count;
  }

  async updateEndpoint(
    manager: EntityManager,
    id: number,
    values: Partial<
      Pick<
        WebhookEndpoint,
        'url' | 'eventTypes' | 'disabledAt' | 'secret' | 'previousSecret' | 'previousSecretExpiresAt'
      >
    >,
  ): Promise<void> {
    await manager.update(WebhookEndpoint, { id }, values);
  }

  /** A disabled endpoint's waiting deliveries wait paused (their attempt in flight, if any, still ends). */
  async pauseDeliveries(manager: EntityManager, endpointId: number): Promise<void> {
    await manager.update(WebhookDelivery, { endpointId, status: 'pending' }, { status: 'paused' });
  }

  /**
   * An enabled endpoint's paused deliveries (webhook_deliveries_paused_idx): those created before `givenUpBefore`
   * are given up (failed), the others are due at once.
   */
  async resumeDeliveries(manager: EntityManager, endpointId: number, givenUpBefore: Date): Promise<void> {
    await manager.query(
      `UPDATE webhook_deliveries
       SET status = CASE WHEN created_at < $2 THEN 'failed' ELSE 'pending' END, next_attempt_at = now()
       WHERE endpoint_id = $1 AND status = 'paused'`,
      [endpointId, givenUpBefore],
    );
  }

  /**
   * Endpoints not deleted, by id (webhook_endpoints_company_idx when filtered by company, the URL filter checked
   * on those rows: a company has a handful of endpoints; across companies, a URL filter of 3 characters or more
   * through webhook_endpoints_url_trgm_idx).
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

  /**
   * Stops an endpoint: nothing more is queued for it, what was waiting is cancelled, and once the transaction
   * commits every dispatcher ends its attempts in flight to it (ENDPOINT_STOPPED_CHANNEL).
   */
  async deactivate(
    manager: EntityManager,
    id: number,
    values: Partial<Pick<WebhookEndpoint, 'disabledReason' | 'deletedAt'>>,
  ): Promise<void> {
    await manager.update(WebhookEndpoint, { id }, { ...values, active: false });
    await manager.update(
      WebhookDelivery,
      { endpointId: id, status: In(['pending', 'paused']) },
      { status: 'cancelled' },
    );
    await manager.query('SELECT pg_notify($1, $2)', [ENDPOINT_STOPPED_CHANNEL, String(id)]);
  }

  /**
   * An endpoint's deliveries, newest first, optionally only those of one status (webhook_deliveries_endpoint_
   * status_idx), of one event (webhook_deliveries_event_idx) or of one event type (webhook_deliveries_endpoint_
   * type_idx: a rare type is found without reading the endpoint's other deliveries).
   */
  listDeliveries(
    endpointId: number,
    offset: number,
    limit: number,
    filter: DeliveryFilter = {},
  ): Promise<WebhookDelivery[]> {
    const query = this.dataSource.manager
      .createQueryBuilder(WebhookDelivery, 'delivery')
      .where('delivery.endpointId = :endpointId', { endpointId });
    if (filter.status !== undefined) query.andWhere('delivery.status = :status', { status: filter.status });
    if (filter.eventId !== undefined)
      query.andWhere('delivery.eventId = :eventId', { eventId: filter.eventId });
    if (filter.eventType !== undefined)
      query.andWhere('delivery.eventType = :eventType', { eventType: filter.eventType });
    return query.orderBy('delivery.id', 'DESC').offset(offset).limit(limit).getMany();
  }

  /**
   * Every attempt of the given deliveries, oldest first, in one statement: with what was sent and what came
   * back when `exchange`, else only their outcome (a list page does not carry receivers' bodies).
   */
  attemptsOf(deliveryIds: string[], exchange = false): Promise<WebhookAttempt[]> {
    if (deliveryIds.length === 0) return Promise.resolve([]);
    return this.dataSource.manager.find(WebhookAttempt, {
      select: exchange ? undefined : OUTCOME_COLUMNS,
      where: { deliveryId: In(deliveryIds) },
      order: { deliveryId: 'ASC', id: 'ASC' },
    });
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

  /** Stops a gone endpoint (it answered 410) in a transaction of its own. */
  stopGoneEndpoint(endpointId: number, reason: string): Promise<void> {
    return this.unitOfWork.transaction((manager) =>
      this.deactivate(manager, endpointId, { disabledReason: reason }),
    );
  }

  /**
   * Deletes up to `limit` finished deliveries (their attempts with them) created before `before`
   * (webhook_deliveries_created_idx); one with an attempt in flight (a hand retry of a given-up delivery) is
   * left for the next run. Returns how many were deleted.
   */
  async purgeFinished(before: Date, limit: number): Promise<number> {
    const [, deleted]: [unknown, number] = await this.dataSource.query(
      `DELETE FROM webhook_deliveries WHERE id IN (
         SELECT id FROM webhook_deliveries
         WHERE created_at < $1 AND status <> 'pending' AND ${NOT_IN_FLIGHT}
         LIMIT $2)`,
      [before, limit],
    );
    return deleted;
  }

  /**
   * The deliveries of the given events, at most `perEvent` of each (by id), with their endpoint's URL and last
   * attempt: one statement (webhook_deliveries_event_idx, webhook_attempts_delivery_idx).
   */
  deliveriesOfEvents(eventIds: string[], perEvent: number): Promise<EventDeliveryRow[]> {
    if (eventIds.length === 0) return Promise.resolve([]);
    return this.dataSource.query(
      `SELECT d.id, d.event_id, d.endpoint_id, w.url AS endpoint_url, d.status, d.attempt_count,
         a.attempted_at, a.status_code, a.duration_ms, a.error
       FROM unnest($1::bigint[]) AS e(id)
       CROSS JOIN LATERAL (
         SELECT * FROM webhook_deliveries d WHERE d.event_id = e.id ORDER BY d.id LIMIT $2
       ) d
       JOIN webhook_endpoints w ON w.id = d.endpoint_id
       LEFT JOIN LATERAL (
         SELECT attempted_at, status_code, duration_ms, error
         FROM webhook_attempts a WHERE a.delivery_id = d.id ORDER BY a.id DESC LIMIT 1
       ) a ON true
       ORDER BY d.event_id, d.id`,
      [eventIds, perEvent],
    );
  }
}
