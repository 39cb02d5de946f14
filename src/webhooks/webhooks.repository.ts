import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { UnitOfWork } from '../platform/database/unit-of-work';
import { recordWritePositionsSql } from '../platform/database/write-positions';
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
  /** The secret before a rotation, while its overlap lasts: the delivery is signed with both then. */
  previousSecret: string | null;
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
  previous_secret: string | null;
  event_id: string;
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

/** No attempt of the delivery is being sent (an expired lease is one whose claimant died). */
const NOT_IN_FLIGHT = '(in_flight_until IS NULL OR in_flight_until <= now())';

/** Until when a claim holds: $2 ms from now. */
const LEASE_END = 'now() + make_interval(secs => $2::double precision / 1000)';

/**
 * Locks the deliveries `due` (SQL selecting their ids FOR UPDATE) and puts them in flight until the lease ends,
 * unless their endpoint is disabled (one queued pending by a change that committed as it was being disabled
 * waits so until it is enabled), one more attempt each, sets `alsoSet` (SQL), and returns what sending them
 * takes. Before anything is sent, the statement records the write positions of the companies whose deliveries
 * it claims for the first time: the write that queued a delivery records its company's position only after it
 * commits, and a receiver that reads the order at once must not be answered by a replica that has not replayed
 * that write (ReplicaReads). Later attempts need nothing: positions only move forward.
 */
const claim = (due: string, alsoSet = '') => `WITH due AS (${due}),
     claimed AS (
       UPDATE webhook_deliveries d
       SET in_flight_until = ${LEASE_END}, attempt_count = d.attempt_count + 1${alsoSet}
       FROM due, webhook_endpoints w
       WHERE d.id = due.id AND w.id = d.endpoint_id AND w.disabled_at IS NULL
       RETURNING d.id, d.status, d.attempt_count, d.created_at, w.id AS endpoint_id, w.company_id, w.url, w.secret,
         CASE WHEN w.previous_secret_expires_at > now() THEN w.previous_secret END AS previous_secret, d.event_id
     ),
     positions AS (${recordWritePositionsSql('SELECT DISTINCT company_id FROM claimed WHERE attempt_count = 1')})
     SELECT id, status, attempt_count, created_at, endpoint_id, url, secret, previous_secret, event_id FROM claimed`;

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
    previousSecret: row.previous_secret,
    eventId: row.event_id,
  };
}

/** Whose endpoints a caller reaches: a partner its company's only, an admin every company's (none named). */
export interface EndpointScope {
  companyId?: number;
}

/** What one attempt of a claimed delivery sent and got back. */
export type AttemptRecord = Omit<WebhookAttempt, 'id' | 'deliveryId' | 'delivery'>;

/** One attempt of a claimed batch, the body it sent, and where its delivery goes from it. */
export interface RecordedAttempt {
  deliveryId: string;
  attempt: AttemptRecord;
  requestBody: string;
  outcome: DeliveryOutcome;
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

  /** An endpoint, of the scope's company when it names one (another company's is missing). */
  findEndpoint(
    id: number,
    manager: EntityManager = this.dataSource.manager,
    scope: EndpointScope = {},
  ): Promise<WebhookEndpoint | null> {
    return manager.findOneBy(WebhookEndpoint, scope.companyId === undefined ? { id } : { id, ...scope });
  }

  /** The same, locked until the transaction ends: settings and rotations of one endpoint are serialised. */
  findEndpointForUpdate(
    manager: EntityManager,
    id: number,
    scope: EndpointScope,
  ): Promise<WebhookEndpoint | null> {
    return manager.findOne(WebhookEndpoint, {
      where: scope.companyId === undefined ? { id } : { id, ...scope },
      lock: { mode: 'pessimistic_write' },
    });
  }

  async updateEndpoint(
    manager: EntityManager,
    id: number,
    values: Partial<
      Pick<
        WebhookEndpoint,
        'eventTypes' | 'disabledAt' | 'secret' | 'previousSecret' | 'previousSecretExpiresAt'
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

  /** Stops an endpoint: nothing more is queued for it, and what was waiting is cancelled. */
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

  /**
   * Claims up to `limit` due deliveries for this dispatcher: rows another dispatcher or a hand retry is
   * claiming are skipped (SKIP LOCKED), as are rows in flight; each claimed row is in flight for `leaseMs`, so
   * no one else sends it meanwhile, and its next attempt moves to the lease's end (it is not waiting to be
   * sent, for the outbox metrics), so it is due again by itself if this process dies.
   */
  async claimDue(limit: number, leaseMs: number): Promise<ClaimedDelivery[]> {
    const rows: ClaimedRow[] = await this.dataSource.query(
      claim(
        `SELECT id FROM webhook_deliveries
         WHERE status = 'pending' AND next_attempt_at <= now() AND ${NOT_IN_FLIGHT}
         ORDER BY next_attempt_at
         LIMIT $1
         FOR UPDATE SKIP LOCKED`,
        `, next_attempt_at = ${LEASE_END}`,
      ),
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
    const rows: ClaimedRow[] = await manager.query(
      claim(`SELECT id FROM webhook_deliveries WHERE id = $1 AND ${NOT_IN_FLIGHT} FOR UPDATE`),
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
   * Records the attempts of a claimed batch and where each delivery goes from its attempt, in one statement
   * (one transaction whatever the batch size), and ends their flight. A success also counts for a given-up
   * delivery retried by hand; a delivery cancelled meanwhile stays so; a retry's next attempt is timed on the
   * database's clock, like the claim; a gone endpoint's delivery is given up here (the caller deactivates the
   * endpoint).
   */
  async recordAttempts(recorded: RecordedAttempt[]): Promise<void> {
    if (recorded.length === 0) return;
    const rows = recorded.map(({ deliveryId, attempt, requestBody, outcome }) => ({
      delivery_id: deliveryId,
      attempted_at: attempt.attemptedAt.toISOString(),
      status_code: attempt.statusCode,
      duration_ms: attempt.durationMs,
      error: attempt.error,
      request_headers: attempt.requestHeaders,
      response_headers: attempt.responseHeaders,
      response_body: attempt.responseBody,
      response_body_truncated: attempt.responseBodyTruncated,
      request_body: requestBody,
      kind: outcome.kind,
      delay_ms: outcome.kind === 'retry' ? outcome.delayMs : null,
    }));
    await this.dataSource.query(
      `WITH outcome AS (
         SELECT * FROM jsonb_to_recordset($1::jsonb) AS o(
           delivery_id bigint, attempted_at timestamptz, status_code smallint, duration_ms integer,
           error varchar(500), request_headers jsonb, response_headers jsonb, response_body text,
           response_body_truncated boolean, request_body text, kind text, delay_ms double precision)
       ), attempts AS (
         INSERT INTO webhook_attempts (delivery_id, attempted_at, status_code, duration_ms, error,
           request_headers, response_headers, response_body, response_body_truncated)
         SELECT delivery_id, attempted_at, status_code, duration_ms, error,
           request_headers, response_headers, response_body, response_body_truncated
         FROM outcome
       )
       UPDATE webhook_deliveries d
       SET in_flight_until = NULL,
         request_body = coalesce(d.request_body, o.request_body),
         status = CASE
           WHEN o.kind = 'succeeded' AND d.status IN ('pending', 'paused', 'failed') THEN 'succeeded'
           WHEN o.kind IN ('failed', 'gone') AND d.status = 'pending' THEN 'failed'
           ELSE d.status END,
         delivered_at = CASE
           WHEN o.kind = 'succeeded' AND d.status IN ('pending', 'paused', 'failed') THEN now()
           ELSE d.delivered_at END,
         next_attempt_at = CASE
           WHEN o.kind = 'retry' AND d.status = 'pending' AND o.delay_ms IS NOT NULL
             THEN now() + make_interval(secs => o.delay_ms / 1000)
           ELSE d.next_attempt_at END
       FROM outcome o
       WHERE d.id = o.delivery_id`,
      [JSON.stringify(rows)],
    );
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
