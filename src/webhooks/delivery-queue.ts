import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { StoredEvent } from '../outbox/event-types';
import { type PreparedStatement, PreparedStatements } from '../platform/database/prepared-statements';
import { recordWritePositionsSql } from '../platform/database/write-positions';
import type { DeliveryStatus, WebhookAttempt } from './webhook-delivery.entity';
import { MOVED_AFTER_MS, type Sending } from './send-slots';

/** A delivery claimed for one attempt, with what sending it takes. */
export interface ClaimedDelivery {
  id: string;
  /** Pending, or failed (given up) when an admin retries it by hand. */
  status: DeliveryStatus;
  /** Claimed by a hand retry rather than by a dispatcher. */
  byHand: boolean;
  /** The number of this attempt (the claim counted it). */
  attemptCount: number;
  createdAt: Date;
  endpointId: number;
  url: string;
  secret: string;
  /** The secret before a rotation, while its overlap lasts: the delivery is signed with both then. */
  previousSecret: string | null;
  event: StoredEvent;
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
  event_type: StoredEvent['type'];
  event_data: Record<string, unknown>;
  event_created_at: Date;
}

/** What one attempt sent and got back. */
export type AttemptRecord = Omit<WebhookAttempt, 'id' | 'deliveryId' | 'delivery'>;

/** How a claimed delivery ends this attempt. */
export type DeliveryOutcome =
  | { kind: 'succeeded' }
  /** Tried again after `delayMs`, or on the schedule it had when null (a hand retry's failure). */
  | { kind: 'retry'; delayMs: number | null }
  | { kind: 'failed' }
  | { kind: 'gone'; reason: string }
  /** Ended early because its endpoint stopped receiving: the delivery stays as the stop left it (cancelled). */
  | { kind: 'cancelled' };

/** One ended attempt of a claimed delivery, the body it sent, and where its delivery goes from it. */
export interface RecordedAttempt {
  deliveryId: string;
  /** The attempt's number, as its claim counted it. */
  attemptNumber: number;
  attempt: AttemptRecord;
  requestBody: string;
  outcome: DeliveryOutcome;
}

/** A claim's bounds: how many deliveries to take at most, and what this dispatcher already sends. */
export interface ClaimBounds {
  limit: number;
  /** How many due deliveries the claim reads to take `limit` within the endpoints' caps (and move the others). */
  scan: number;
  perEndpoint: number;
  sending: Sending;
  leaseMs: number;
}

/** What a turn did: the deliveries it claimed, and until when it moved each endpoint's waiting ones. */
export interface Turn {
  claimed: ClaimedDelivery[];
  /** Per endpoint whose due deliveries had to wait for a slot: the time the last of them was moved to. */
  waiting: { endpointId: number; until: Date }[];
}

/** No attempt of the delivery is being sent (an expired lease is one whose claimant died). */
export const NOT_IN_FLIGHT = '(in_flight_until IS NULL OR in_flight_until <= now())';

/** Until when a claim holds: `leaseMs` (a parameter) from now. */
const leaseEnd = (leaseMs: string) => `now() + make_interval(secs => ${leaseMs}::double precision / 1000)`;

/** The claimed rows' columns, the event's with them, from the CTE `claimed` (aliased c) joined with events (e). */
const CLAIMED_COLUMNS = `c.id, c.status, c.attempt_count, c.created_at, c.endpoint_id, c.url, c.secret,
       c.previous_secret, c.event_id, e.type AS event_type, e.data AS event_data, e.created_at AS event_created_at`;

/**
 * SQL, the CTEs `claimed` and `positions` from the CTE `picked` (delivery ids and when each was due, locked FOR
 * UPDATE): puts them in flight until the lease ends, unless their endpoint is disabled or stopped (one queued
 * pending by a change that committed as it was being disabled waits so until it is enabled), one more attempt
 * each, sets `alsoSet`, and returns what sending them takes. Before anything is sent, the statement records the
 * write positions of the companies whose deliveries it claims for the first time: the write that queued a
 * delivery records its company's position only after it commits, and a receiver that reads the order at once
 * must not be answered by a replica that has not replayed that write (ReplicaReads). Later attempts need
 * nothing: positions only move forward.
 */
const claimSql = (leaseMs: string, alsoSet = '') => `claimed AS (
       UPDATE webhook_deliveries d
       SET in_flight_until = ${leaseEnd(leaseMs)}, attempt_count = d.attempt_count + 1${alsoSet}
       FROM picked, webhook_endpoints w
       WHERE d.id = ANY (ARRAY(SELECT id FROM picked)) AND d.id = picked.id
         AND w.id = d.endpoint_id AND w.active AND w.disabled_at IS NULL
       RETURNING d.id, d.status, d.attempt_count, d.created_at, d.event_id, w.id AS endpoint_id, w.company_id, w.url,
         w.secret, CASE WHEN w.previous_secret_expires_at > now() THEN w.previous_secret END AS previous_secret,
         picked.due_at
     ),
     positions AS (${recordWritePositionsSql('SELECT DISTINCT company_id FROM claimed WHERE attempt_count = 1')})`;

/** The claimed rows' events, read by key whatever the estimates. */
const CLAIMED_EVENTS =
  'claimed c JOIN events e ON e.id = c.event_id AND e.id = ANY (ARRAY(SELECT event_id FROM claimed))';

/**
 * A dispatcher's one statement per turn (WebhookDispatcher): records the attempts that ended since its last
 * turn, and claims up to $8 due deliveries for it, oldest due first.
 *
 * Recording: each attempt inserted, its delivery moved on (a success also counts for a given-up delivery retried
 * by hand; a delivery cancelled meanwhile stays so; a retry's next attempt is timed on the database's clock, like
 * the claim; a gone endpoint's delivery is given up here, the caller deactivates the endpoint) and out of flight,
 * unless another claim has taken it since (its lease ran out first: that attempt's flight is left alone).
 *
 * Claiming: the first $2 due deliveries that no one sends (webhook_deliveries_due_idx, oldest due first), read
 * without a lock, passing over those of the endpoints in $10 (fast ones at their cap, SendSlots). Of each
 * endpoint's, as many as its free slots (the cap $7 less its attempts in flight, the arrays $3–$6 giving this
 * dispatcher's busy endpoints) are chosen, $8 in all; the others wait for a slot. Those expected to wait
 * MOVED_AFTER_MS or more (their place in the line times their endpoint's pace: a slow or hung endpoint's) are moved
 * to when a slot is expected to free up, one pace after the other, from the last one moved before (the arrays
 * again), out of the way of the other endpoints' due deliveries, so they never fill what the next claims read; the
 * others stay due. Only the rows chosen or moved are locked, skipping those another claimer is locking (SKIP LOCKED); a row another
 * claimer took since the statement began fails the conditions again once locked (READ COMMITTED reads its new
 * version) and is left alone. Each claimed row is in flight for the lease ($9 ms), so no one else sends it
 * meanwhile, and its next attempt moves to the lease's end (it is not waiting to be sent, for the outbox
 * metrics), so it is due again by itself if this process dies.
 *
 * The rows: one per claimed delivery (`kind` claimed, oldest due first), then one per endpoint whose deliveries
 * were moved (`kind` waiting, `until` the latest time one was moved to).
 */
const DISPATCH_TURN: PreparedStatement = {
  name: 'webhook_dispatch_turn',
  text: `WITH ended AS (
       SELECT * FROM jsonb_to_recordset($1::jsonb) AS o(
         delivery_id bigint, attempt_number integer, attempted_at timestamptz, status_code smallint,
         duration_ms integer, error varchar(500), request_headers jsonb, response_headers jsonb, response_body text,
         response_body_truncated boolean, request_body text, kind text, delay_ms double precision)
     ),
     attempts AS (
       INSERT INTO webhook_attempts (delivery_id, attempted_at, status_code, duration_ms, error,
         request_headers, response_headers, response_body, response_body_truncated)
       SELECT delivery_id, attempted_at, status_code, duration_ms, error,
         request_headers, response_headers, response_body, response_body_truncated
       FROM ended
     ),
     recorded AS (
       UPDATE webhook_deliveries d
       SET in_flight_until = CASE WHEN d.attempt_count = o.attempt_number THEN NULL ELSE d.in_flight_until END,
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
       FROM ended o
       WHERE d.id = ANY (ARRAY(SELECT delivery_id FROM ended)) AND d.id = o.delivery_id
     ),
     due AS (
       SELECT d.id, d.endpoint_id, d.next_attempt_at FROM webhook_deliveries d
       WHERE d.status = 'pending' AND d.next_attempt_at <= now() AND ${NOT_IN_FLIGHT}
         AND d.endpoint_id <> ALL ($10::integer[]) AND d.id NOT IN (SELECT delivery_id FROM ended)
       ORDER BY d.next_attempt_at
       LIMIT $2
     ),
     ranked AS (
       SELECT due.id, due.next_attempt_at,
         row_number() OVER (PARTITION BY due.endpoint_id ORDER BY due.next_attempt_at, due.id)
           + coalesce(busy.in_flight, 0) - $7 AS waiting,
         coalesce(busy.pace_ms, 0) AS pace_ms,
         greatest(now(), to_timestamp(coalesce(busy.wait_until, 0) / 1000)) AS wait_from
       FROM due
       LEFT JOIN unnest($3::integer[], $4::integer[], $5::double precision[], $6::double precision[])
         AS busy(endpoint_id, in_flight, pace_ms, wait_until) ON busy.endpoint_id = due.endpoint_id
     ),
     chosen AS (SELECT id FROM ranked WHERE waiting <= 0 ORDER BY next_attempt_at, id LIMIT $8),
     picked AS (
       SELECT d.id, d.next_attempt_at AS due_at FROM webhook_deliveries d
       WHERE d.id = ANY (ARRAY(SELECT id FROM chosen))
         AND d.status = 'pending' AND d.next_attempt_at <= now() AND ${NOT_IN_FLIGHT}
       FOR UPDATE SKIP LOCKED
     ),
     held AS (
       SELECT d.id FROM webhook_deliveries d
       WHERE d.id = ANY (ARRAY(SELECT id FROM ranked WHERE waiting > 0 AND waiting * pace_ms >= ${MOVED_AFTER_MS}))
         AND d.status = 'pending' AND d.next_attempt_at <= now() AND ${NOT_IN_FLIGHT}
       FOR UPDATE SKIP LOCKED
     ),
     moved AS (
       UPDATE webhook_deliveries d
       SET next_attempt_at = r.wait_from + make_interval(secs => r.waiting * r.pace_ms / 1000)
       FROM ranked r
       WHERE d.id = ANY (ARRAY(SELECT id FROM held)) AND d.id = r.id
       RETURNING d.endpoint_id, d.next_attempt_at
     ),
     ${claimSql('$9', `, next_attempt_at = ${leaseEnd('$9')}`)}
     SELECT 'claimed' AS kind, ${CLAIMED_COLUMNS}, c.due_at AS at FROM ${CLAIMED_EVENTS}
     UNION ALL
     SELECT 'waiting', NULL, NULL, NULL, NULL, endpoint_id, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
       max(next_attempt_at)
     FROM moved GROUP BY endpoint_id
     ORDER BY kind, at, id`,
};

interface TurnRow extends ClaimedRow {
  kind: 'claimed' | 'waiting';
  at: Date;
}

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
    event: {
      id: row.event_id,
      type: row.event_type,
      data: row.event_data,
      createdAt: row.event_created_at,
    },
  };
}

/** What a turn that claims nothing passes as its claim's bounds. */
const NO_CLAIM: Omit<ClaimBounds, 'leaseMs'> = {
  limit: 0,
  scan: 0,
  perEndpoint: 1,
  sending: { endpointIds: [], inFlight: [], paceMs: [], waitUntil: [], skipped: [] },
};

/**
 * The webhook deliveries' queue: what dispatchers and hand retries claim, and where their attempts are recorded
 * (CONTRACT §5, §6). A claim is in the database (a lease on the row), so it holds across instances.
 */
@Injectable()
export class DeliveryQueue {
  constructor(private readonly prepared: PreparedStatements) {}

  /**
   * Records `ended` and claims deliveries within `claim` (none when null), moving those that must wait for a slot
   * of their endpoint, in one statement: one transaction whatever the number of each.
   */
  async turn(ended: RecordedAttempt[], claim: ClaimBounds | null, leaseMs: number): Promise<Turn> {
    const bounds = claim ?? { ...NO_CLAIM, leaseMs };
    const rows = await this.prepared.rows<TurnRow>(DISPATCH_TURN, [
      JSON.stringify(ended.map(toOutcomeRow)),
      bounds.scan,
      bounds.sending.endpointIds,
      bounds.sending.inFlight,
      bounds.sending.paceMs,
      bounds.sending.waitUntil,
      bounds.perEndpoint,
      bounds.limit,
      bounds.leaseMs,
      bounds.sending.skipped,
    ]);
    return {
      claimed: rows.filter((row) => row.kind === 'claimed').map((row) => toClaimedDelivery(row, false)),
      waiting: rows
        .filter((row) => row.kind === 'waiting')
        .map((row) => ({ endpointId: row.endpoint_id, until: row.at })),
    };
  }

  /**
   * Claims one delivery an admin or a partner retries, in the caller's transaction (which has locked it), unless
   * an attempt of it is in flight: null then. Its next automatic attempt stays where it was.
   */
  async claimForRetry(manager: EntityManager, id: string, leaseMs: number): Promise<ClaimedDelivery | null> {
    const rows: ClaimedRow[] = await manager.query(
      `WITH picked AS (
         SELECT d.id, d.next_attempt_at AS due_at FROM webhook_deliveries d WHERE d.id = $1 AND ${NOT_IN_FLIGHT} FOR UPDATE
       ),
       ${claimSql('$2')}
       SELECT ${CLAIMED_COLUMNS} FROM ${CLAIMED_EVENTS}`,
      [id, leaseMs],
    );
    return rows.length === 0 ? null : toClaimedDelivery(rows[0], true);
  }
}

/** An ended attempt as the turn's `ended` rows take it. */
const toOutcomeRow = ({ deliveryId, attemptNumber, attempt, requestBody, outcome }: RecordedAttempt) => ({
  delivery_id: deliveryId,
  attempt_number: attemptNumber,
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
});
