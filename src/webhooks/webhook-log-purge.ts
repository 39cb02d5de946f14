import { Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { Environment } from '../platform/config/environment';
import { inBatches, PeriodicJobs, type RunReport } from '../platform/jobs/periodic-job';
import { ServiceLogger } from '../platform/logging/loggers';
import { WebhooksRepository } from './webhooks.repository';

const PURGE_INTERVAL_MS = 10 * 60 * 1000;
const BATCH_SIZE = 1_000;
const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Keeps the delivery log bounded: a periodic job (at start and every 10 minutes, where SERVICE_ROLE runs the
 * periodic jobs) that deletes the deliveries (and their attempts) that finished and were created more than
 * WEBHOOK_LOG_RETENTION_DAYS ago, in batches (a backlog over several runs). Pending deliveries are never deleted. Deleting what another
 * instance already deleted is harmless.
 */
@Injectable()
export class WebhookLogPurge {
  private readonly retentionMs: number;

  constructor(
    private readonly webhooks: WebhooksRepository,
    logger: ServiceLogger,
    jobs: PeriodicJobs,
    config: ConfigService<Environment, true>,
  ) {
    logger.setContext(WebhookLogPurge.name);
    this.retentionMs = config.get('WEBHOOK_LOG_RETENTION_DAYS', { infer: true }) * DAY_MS;
    jobs.add({
      name: 'webhook-log-purge',
      intervalMs: PURGE_INTERVAL_MS,
      work: 'Purging the webhook delivery log',
      logger,
      run: (until) => this.purge(until),
    });
  }

  private async purge(until: number): Promise<RunReport | undefined> {
    const before = new Date(Date.now() - this.retentionMs);
    const total = await inBatches(() => this.webhooks.purgeFinished(before, BATCH_SIZE), BATCH_SIZE, until);
    return total > 0
      ? { fields: { event: 'webhook_log_purged', deleted: total }, message: 'Old deliveries deleted' }
      : undefined;
  }
}
