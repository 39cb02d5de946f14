import { type BeforeApplicationShutdown, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { SecretSealer } from '../platform/formats/secret-sealer';
import type { Environment } from '../platform/config/environment';
import { configuredDuties } from '../platform/config/service-role';
import { Outage } from '../platform/database/outage';
import { toEventResponse } from '../outbox/dto/event-feed.response';
import { publicEventId, type StoredEvent } from '../outbox/event-types';
import { EventsService } from '../outbox/events.service';
import { JobLog } from '../platform/logging/job-log';
import { ServiceLogger } from '../platform/logging/loggers';
import { AppMetrics } from '../platform/metrics/app-metrics';
import { RETRY_WINDOW_MS, retryDelayMs } from './retry-schedule';
import { type SendResult, sendWebhook } from './webhook-sender';
import {
  type ClaimedDelivery,
  type DeliveryOutcome,
  type RecordedAttempt,
  WebhooksRepository,
} from './webhooks.repository';

/** Deliveries sent at once by one dispatcher. */
const BATCH_SIZE = 20;
/** A claimed delivery is someone else's again this long after its attempt's timeout, if never recorded. */
const LEASE_MARGIN_MS = 30_000;

/** An attempt sent, ready to be recorded, with what its log line names. */
interface SentAttempt extends RecordedAttempt {
  endpointId: number;
  attemptNumber: number;
  webhookId: string;
}

/**
 * Delivers the outbox (CONTRACT §5). Every instance whose SERVICE_ROLE includes it (`all`, `worker`) runs one
 * loop: claim due deliveries (SKIP LOCKED, with a lease), POST them signed, record the batch's attempts in one statement, and schedule the
 * retry with backoff until the event is 24 hours old. Instances never send one delivery at the same time.
 */
@Injectable()
export class WebhookDispatcher implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private timer?: NodeJS.Timeout;
  private running: Promise<void> = Promise.resolve();
  private stopped = false;
  private readonly enabled: boolean;
  private readonly timeoutMs: number;
  private readonly retryBaseMs: number;
  private readonly pollIntervalMs: number;
  private readonly allowPrivate: boolean;
  private readonly outage: Outage;

  constructor(
    private readonly webhooks: WebhooksRepository,
    private readonly events: EventsService,
    private readonly sealer: SecretSealer,
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
  }

  onApplicationBootstrap(): void {
    if (this.enabled) this.schedule(0);
  }

  /** Lets the attempts in flight finish and be recorded before the pool closes. */
  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.dispatchDue().then((nextMs) => this.schedule(nextMs));
    }, delayMs);
  }

  /**
   * Sends one batch; resolves with the wait before the next: none when the batch was full (more may be due),
   * the poll interval otherwise, and a growing backoff while dispatch fails (the database away, say). One
   * iteration is one job of the job log (its statements on one line with LOG_SQL).
   */
  private async dispatchDue(): Promise<number> {
    try {
      const claimedCount = await this.jobLog.run('webhook-dispatch', this.leaseMs, async () => {
        const claimed = await this.webhooks.claimDue(BATCH_SIZE, this.leaseMs);
        await this.deliver(claimed);
        return claimed.length;
      });
      this.outage.succeeded();
      return claimedCount === BATCH_SIZE ? 0 : this.pollIntervalMs;
    } catch (error) {
      return this.outage.failed(error);
    }
  }

  /** How long a claimed delivery stays with its claimant: an attempt's timeout and a margin. */
  get leaseMs(): number {
    return this.timeoutMs + LEASE_MARGIN_MS;
  }

  /**
   * Sends claimed deliveries (due ones, or one an admin retries) at once, their events read in one statement,
   * then records every attempt and where each delivery goes from it in one statement; an endpoint that
   * answered 410 Gone is stopped afterwards.
   */
  async deliver(claimed: ClaimedDelivery[]): Promise<void> {
    if (claimed.length === 0) return;
    const events = await this.events.byIds(claimed.map((delivery) => delivery.eventId));
    const sent = await Promise.all(
      claimed.map((delivery) => this.send(delivery, events.get(delivery.eventId)!)),
    );
    await this.webhooks.recordAttempts(sent);
    for (const { outcome, endpointId } of sent) {
      if (outcome.kind === 'gone') await this.webhooks.stopGoneEndpoint(endpointId, outcome.reason);
    }
    for (const attempt of sent) this.logAttempt(attempt);
  }

  /** Sends one claimed delivery; returns the attempt and where the delivery goes from it. */
  private async send(delivery: ClaimedDelivery, event: StoredEvent): Promise<SentAttempt> {
    const attemptedAt = new Date();
    const webhookId = publicEventId(event.id);
    const body = JSON.stringify(toEventResponse(event));
    const result = await sendWebhook(
      {
        url: delivery.url,
        secrets: signingSecrets(delivery).map((sealed) => this.sealer.open(sealed)),
        eventId: webhookId,
        body,
      },
      { timeoutMs: this.timeoutMs, allowPrivate: this.allowPrivate },
    );
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
      outcome: this.outcomeOf(delivery, result),
    };
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
