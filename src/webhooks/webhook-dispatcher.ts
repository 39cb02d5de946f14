import { type BeforeApplicationShutdown, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { SecretSealer } from '../platform/formats/secret-sealer';
import type { Environment } from '../platform/config/environment';
import { configuredDuties } from '../platform/config/service-role';
import { Notifications } from '../platform/database/notifications';
import { Outage } from '../platform/database/outage';
import { toEventResponse } from '../outbox/dto/event-feed.response';
import { publicEventId } from '../outbox/event-types';
import { JobLog } from '../platform/logging/job-log';
import { ServiceLogger } from '../platform/logging/loggers';
import { AppMetrics } from '../platform/metrics/app-metrics';
import { RETRY_WINDOW_MS, retryDelayMs } from './retry-schedule';
import { type SendResult, sendWebhook } from './webhook-sender';
import {
  type ClaimBounds,
  type ClaimedDelivery,
  type DeliveryOutcome,
  DeliveryQueue,
  type RecordedAttempt,
  type Turn,
} from './delivery-queue';
import { SendSlots } from './send-slots';
import { ENDPOINT_STOPPED_CHANNEL, WebhooksRepository } from './webhooks.repository';

/** Deliveries one claim takes at most (fewer when fewer slots are free). */
const CLAIM_LIMIT = 100;
/**
 * A claim looks at this many times the deliveries it may take, so that a burst of one endpoint's deliveries,
 * past that endpoint's cap, does not leave the claim short when others are due right behind it.
 */
const SCAN_FACTOR = 2;
/**
 * How long a turn waits after what called for it (an attempt ended, a write committed events, the poll), so that
 * what happens meanwhile is recorded and claimed by the same statement (a statement costs the service about 0.8
 * ms of CPU, most of it in the kernel); none when enough is waiting already.
 */
const TURN_DELAY_MS = 25;
/** Attempts waiting to be recorded that make the next turn run at once. */
const ENDED_NOW = 16;
/** A claimed delivery is someone else's again this long after its attempt's timeout, if never recorded. */
const LEASE_MARGIN_MS = 30_000;
/** Why an attempt ends early: its endpoint was deleted, or answered 410 Gone to another attempt. */
const STOPPED = 'Not sent: the endpoint stopped receiving (deleted, or gone) before the receiver answered.';

/** An attempt that ended, to be recorded, with what its log line names. */
interface SentAttempt extends RecordedAttempt {
  endpointId: number;
  webhookId: string;
}

/**
 * Delivers the outbox (CONTRACT §5). Every instance whose SERVICE_ROLE includes it (`all`, `worker`) keeps up to
 * WEBHOOK_CONCURRENCY attempts in flight, at most WEBHOOK_ENDPOINT_CONCURRENCY of them to one endpoint (SendSlots),
 * so a receiver that is slow or hangs only ever holds its own few slots and every other endpoint's deliveries go
 * on. Each attempt is recorded as soon as it ends: the dispatcher runs one statement at a time (a turn,
 * DeliveryQueue.turn), which records every attempt that ended since the last turn and claims due deliveries for
 * the free slots (SKIP LOCKED, a lease); attempts ending while a turn runs wait only for that turn. A turn runs
 * when an attempt ends, when a write of this instance commits events, at every WEBHOOK_POLL_INTERVAL_MS, and
 * again at once after a claim that may have left due deliveries behind. Failures are retried with backoff until
 * the event is 24 hours old. Instances never send one delivery at the same time.
 */
@Injectable()
export class WebhookDispatcher implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly enabled: boolean;
  private readonly timeoutMs: number;
  private readonly retryBaseMs: number;
  private readonly pollIntervalMs: number;
  private readonly allowPrivate: boolean;
  private readonly outage: Outage;
  private readonly slots: SendSlots;
  /** Attempts that ended, waiting for the next turn to record them. */
  private ended: SentAttempt[] = [];
  /** Deliveries may be due that no turn has looked for yet. */
  private dueMayWait = true;
  /** The last claim was cut short (or moved what it read): more are due at once. */
  private backlog = false;
  private turning = false;
  private delayed?: NodeJS.Timeout;
  /** While the database fails, no turn runs before this time (the outage's backoff). */
  private pausedUntil = 0;
  private poll?: NodeJS.Timeout;
  private resume?: NodeJS.Timeout;
  private stopped = false;
  private drained?: () => void;

  constructor(
    private readonly queue: DeliveryQueue,
    private readonly webhooks: WebhooksRepository,
    private readonly sealer: SecretSealer,
    private readonly notifications: Notifications,
    config: ConfigService<Environment, true>,
    private readonly logger: ServiceLogger,
    private readonly metrics: AppMetrics,
    private readonly jobLog: JobLog,
  ) {
    this.logger.setContext(WebhookDispatcher.name);
    this.enabled = configuredDuties(config).dispatcher;
    this.timeoutMs = config.get('WEBHOOK_TIMEOUT_MS', { infer: true });
    this.retryBaseMs = config.get('WEBHOOK_RETRY_BASE_MS', { infer: true });
    this.pollIntervalMs = config.get('WEBHOOK_POLL_INTERVAL_MS', { infer: true });
    this.allowPrivate = config.get('WEBHOOK_ALLOW_PRIVATE', { infer: true });
    this.outage = new Outage(this.logger, 'Webhook dispatch', this.pollIntervalMs);
    const capacity = config.get('WEBHOOK_CONCURRENCY', { infer: true });
    const perEndpoint = Math.min(capacity, config.get('WEBHOOK_ENDPOINT_CONCURRENCY', { infer: true }));
    this.slots = new SendSlots(capacity, perEndpoint, this.leaseMs);
  }

  async onApplicationBootstrap(): Promise<void> {
    if (!this.enabled) return;
    this.metrics.whenCommitted(() => this.wake());
    this.poll = setInterval(() => this.wake(), this.pollIntervalMs);
    await this.notifications.subscribe(ENDPOINT_STOPPED_CHANNEL, {
      notified: (endpointId) => this.slots.stop(Number(endpointId), STOPPED),
      // An attempt to an endpoint stopped meanwhile ends by its timeout, and its delivery stays cancelled.
      missed: () => undefined,
    });
    this.wake();
  }

  /** Stops claiming, and lets the attempts in flight end and be recorded before the pool closes. */
  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearInterval(this.poll);
    clearTimeout(this.resume);
    clearTimeout(this.delayed);
    this.delayed = undefined;
    this.turn();
    if (this.idle()) return;
    await new Promise<void>((resolve) => (this.drained = resolve));
  }

  /** How long a claimed delivery stays with its claimant: an attempt's timeout and a margin. */
  get leaseMs(): number {
    return this.timeoutMs + LEASE_MARGIN_MS;
  }

  /**
   * Sends a delivery claimed by a hand retry, at once and whatever the slots (an admin or partner waits for it),
   * and records its attempt before returning.
   */
  async sendByHand(delivery: ClaimedDelivery): Promise<void> {
    const sent = await this.attempt(delivery);
    await this.queue.turn([sent], null, this.leaseMs);
    await this.recorded([sent]);
  }

  /** Deliveries may be due: a turn looks for them now, or right after the one running. */
  private wake(): void {
    this.dueMayWait = true;
    this.turn();
  }

  /** Runs a turn now when much is waiting, else after TURN_DELAY_MS; one at a time. */
  private turn(): void {
    if (this.turning || this.delayed || Date.now() < this.pausedUntil || !this.hasWork()) return;
    if (this.urgent()) {
      this.turning = true;
      void this.runTurns();
      return;
    }
    this.delayed = setTimeout(() => {
      this.delayed = undefined;
      if (this.turning || Date.now() < this.pausedUntil || !this.hasWork()) return;
      this.turning = true;
      void this.runTurns();
    }, TURN_DELAY_MS);
  }

  private hasWork(): boolean {
    return this.ended.length > 0 || (this.dueMayWait && !this.stopped && this.slots.free > 0);
  }

  private urgent(): boolean {
    return this.stopped || this.ended.length >= ENDED_NOW || (this.backlog && this.slots.free > 0);
  }

  private async runTurns(): Promise<void> {
    try {
      do await this.runTurn();
      while (this.hasWork() && this.urgent() && Date.now() >= this.pausedUntil);
    } finally {
      this.turning = false;
      if (!this.idle()) this.turn();
    }
  }

  /**
   * One statement: records the attempts that ended, claims due deliveries for the free slots and starts them.
   * One turn is one job of the job log (its statement on one line with LOG_SQL).
   */
  private async runTurn(): Promise<void> {
    const ended = this.ended.splice(0);
    const claim = this.dueMayWait && !this.stopped ? this.claimBounds() : null;
    this.dueMayWait = false;
    let turn: Turn;
    try {
      turn = await this.jobLog.run('webhook-dispatch', this.leaseMs, () =>
        this.queue.turn(ended, claim, this.leaseMs),
      );
      this.outage.succeeded();
    } catch (error) {
      this.failedTurn(error, ended, claim !== null);
      return;
    }
    for (const { endpointId, until } of turn.waiting) this.slots.placedUntil(endpointId, until.getTime());
    for (const delivery of turn.claimed) this.start(delivery);
    // Cut short by its limit, or some it read were moved: more may be due than this claim read.
    this.backlog = claim !== null && (turn.claimed.length === claim.limit || turn.waiting.length > 0);
    if (this.backlog) this.dueMayWait = true;
    await this.recorded(ended);
  }

  private claimBounds(): ClaimBounds {
    const limit = Math.min(this.slots.free, CLAIM_LIMIT);
    return {
      limit,
      scan: limit * SCAN_FACTOR,
      perEndpoint: this.slots.perEndpoint,
      sending: this.slots.sending(),
      leaseMs: this.leaseMs,
    };
  }

  /**
   * A turn the database refused: its attempts wait for the next turn, tried after a growing backoff. While the
   * service stops, they are dropped instead: their leases run out and the deliveries are sent again.
   */
  private failedTurn(error: unknown, ended: SentAttempt[], claimed: boolean): void {
    const delayMs = this.outage.failed(error);
    if (this.stopped) {
      this.logger.warn(
        { event: 'webhook_attempts_unrecorded', deliveryIds: ended.map((attempt) => attempt.deliveryId) },
        'Stopping while the database fails: these attempts are not recorded, and are sent again later',
      );
      return;
    }
    this.ended.unshift(...ended);
    this.dueMayWait ||= claimed;
    this.pausedUntil = Date.now() + delayMs;
    clearTimeout(this.resume);
    this.resume = setTimeout(() => this.turn(), delayMs);
  }

  /**
   * Sends a claimed delivery in a slot of its own; once it ends, its attempt waits for the next turn, which also
   * claims for the slot it freed (its endpoint's deliveries may have waited for it).
   */
  private start(delivery: ClaimedDelivery): void {
    const slot = this.slots.take(delivery.endpointId);
    void this.attempt(delivery, slot.signal).then((sent) => {
      slot.release(sent.outcome.kind === 'cancelled' ? undefined : sent.attempt.durationMs);
      this.ended.push(sent);
      this.dueMayWait = true;
      this.turn();
    });
  }

  /** Sends one claimed delivery; resolves with the attempt and where the delivery goes from it, never rejects. */
  private async attempt(delivery: ClaimedDelivery, stop?: AbortSignal): Promise<SentAttempt> {
    const attemptedAt = new Date();
    const webhookId = publicEventId(delivery.event.id);
    const body = JSON.stringify(toEventResponse(delivery.event));
    let result: SendResult;
    try {
      result = await sendWebhook(
        {
          url: delivery.url,
          secrets: signingSecrets(delivery).map((sealed) => this.sealer.open(sealed)),
          eventId: webhookId,
          body,
        },
        { timeoutMs: this.timeoutMs, allowPrivate: this.allowPrivate, stop },
      );
    } catch (error) {
      this.logger.error({ err: error, deliveryId: delivery.id }, 'A webhook could not be signed or sent');
      result = unsent('Not sent: the service failed to sign or send it (see its log).');
    }
    return {
      deliveryId: delivery.id,
      endpointId: delivery.endpointId,
      attemptNumber: delivery.attemptCount,
      webhookId,
      requestBody: body,
      attempt: {
        attemptedAt,
        statusCode: result.statusCode,
        durationMs: result.durationMs,
        error: result.error,
        requestHeaders: result.requestHeaders,
        responseHeaders: result.response?.headers ?? null,
        responseBody: result.response?.body ?? null,
        responseBodyTruncated: result.response?.bodyTruncated ?? false,
      },
      outcome: stop?.aborted ? { kind: 'cancelled' } : this.outcomeOf(delivery, result),
    };
  }

  /** After the attempts are recorded: their log lines, and an endpoint that answered 410 Gone stopped. */
  private async recorded(attempts: SentAttempt[]): Promise<void> {
    for (const attempt of attempts) this.logAttempt(attempt);
    for (const { outcome, endpointId } of attempts) {
      if (outcome.kind !== 'gone') continue;
      this.slots.stop(endpointId, STOPPED);
      await this.webhooks
        .stopGoneEndpoint(endpointId, outcome.reason)
        .catch((error: unknown) =>
          this.logger.error({ err: error, endpointId }, 'A gone webhook endpoint could not be stopped'),
        );
    }
  }

  /** Whether nothing is in flight, waiting or running; resolves a shutdown waiting for that. */
  private idle(): boolean {
    const idle = !this.turning && this.slots.inFlight === 0 && this.ended.length === 0;
    if (idle && this.stopped) this.drained?.();
    return idle;
  }

  private logAttempt(sent: SentAttempt): void {
    this.metrics.webhookAttempts.inc({ outcome: sent.outcome.kind });
    this.logger.info(
      {
        event: 'webhook_attempt',
        webhookId: sent.webhookId,
        deliveryId: sent.deliveryId,
        endpointId: sent.endpointId,
        attempt: sent.attemptNumber,
        statusCode: sent.attempt.statusCode,
        durationMs: sent.attempt.durationMs,
        outcome: sent.outcome.kind,
      },
      'Webhook attempt',
    );
  }

  private outcomeOf(delivery: ClaimedDelivery, result: SendResult): DeliveryOutcome {
    const status = result.statusCode;
    if (status !== null && status >= 200 && status < 300) return { kind: 'succeeded' };
    if (status === 410) return { kind: 'gone', reason: 'The receiver answered 410 Gone.' };
    if (delivery.byHand)
      return delivery.status === 'failed' ? { kind: 'failed' } : { kind: 'retry', delayMs: null };
    const delayMs = retryDelayMs(
      delivery.attemptCount,
      this.retryBaseMs,
      Math.random(),
      result.retryAfterMs ?? undefined,
    );
    const givesUpAt = delivery.createdAt.getTime() + RETRY_WINDOW_MS;
    return Date.now() + delayMs > givesUpAt ? { kind: 'failed' } : { kind: 'retry', delayMs };
  }
}

/** The sealed secrets a delivery is signed with: the endpoint's, and the previous one during an overlap. */
const signingSecrets = (delivery: ClaimedDelivery): string[] =>
  delivery.previousSecret === null ? [delivery.secret] : [delivery.secret, delivery.previousSecret];

/** An attempt that never left: no answer, nothing sent. */
const unsent = (error: string): SendResult => ({
  statusCode: null,
  durationMs: 0,
  error,
  retryAfterMs: null,
  requestHeaders: {},
  response: null,
});
