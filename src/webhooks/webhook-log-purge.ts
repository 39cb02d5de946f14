import { Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { SchedulerRegistry } from '@nestjs/schedule';
import type { Environment } from '../platform/config/environment';
import { configuredDuties } from '../platform/config/service-role';
import { Outage } from '../platform/database/outage';
import { ServiceLogger } from '../platform/logging/loggers';
import { WebhooksRepository } from './webhooks.repository';

const PURGE_INTERVAL_MS = 10 * 60 * 1000;
const BATCH_SIZE = 1_000;
const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Keeps the delivery log bounded: at start and every 10 minutes, deletes the deliveries (and their attempts)
 * that finished and were created more than WEBHOOK_LOG_RETENTION_DAYS ago, in batches. Pending deliveries
 * are never deleted. Every instance whose SERVICE_ROLE runs the periodic jobs (`all`, `worker`) runs it; deleting what another already
 * deleted is harmless. An outage is one warning when a run first fails and one line when one succeeds.
 */
@Injectable()
export class WebhookLogPurge implements OnApplicationBootstrap {
  private readonly outage: Outage;
  private readonly retentionMs: number;
  private readonly enabled: boolean;

  constructor(
    private readonly webhooks: WebhooksRepository,
    private readonly logger: ServiceLogger,
    private readonly scheduler: SchedulerRegistry,
    config: ConfigService<Environment, true>,
  ) {
    this.logger.setContext(WebhookLogPurge.name);
    this.outage = new Outage(logger, 'Purging the webhook delivery log', PURGE_INTERVAL_MS);
    this.retentionMs = config.get('WEBHOOK_LOG_RETENTION_DAYS', { infer: true }) * DAY_MS;
    this.enabled = configuredDuties(config).jobs;
  }

  onApplicationBootstrap(): void {
    if (!this.enabled) return;
    void this.purge();
    this.scheduler.addInterval(
      'webhook-log-purge',
      setInterval(() => void this.purge(), PURGE_INTERVAL_MS),
    );
  }

  async purge(): Promise<void> {
    try {
      const before = new Date(Date.now() - this.retentionMs);
      let total = 0;
      for (let deleted = BATCH_SIZE; deleted === BATCH_SIZE; total += deleted) {
        deleted = await this.webhooks.purgeFinished(before, BATCH_SIZE);
      }
      this.outage.succeeded();
      if (total > 0)
        this.logger.info({ event: 'webhook_log_purged', deleted: total }, 'Old deliveries deleted');
    } catch (error) {
      this.outage.failed(error);
    }
  }
}
