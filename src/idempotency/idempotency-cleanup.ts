import { Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { Interval } from '@nestjs/schedule';
import { Outage } from '../platform/database/outage';
import { ServiceLogger } from '../platform/logging/loggers';
import { IdempotencyService } from './idempotency.service';

const CLEANUP_INTERVAL_MS = 10 * 60 * 1000;

/**
 * Deletes expired Idempotency-Keys at start and every 10 minutes. Every instance runs it; deleting what
 * another instance already deleted is harmless, and an expired key is ignored by lookups anyway. A database
 * outage is one warning when a run first fails and one line when a later run succeeds (no stack at every run).
 */
@Injectable()
export class IdempotencyCleanup implements OnApplicationBootstrap {
  private readonly outage: Outage;

  constructor(
    private readonly idempotency: IdempotencyService,
    private readonly logger: ServiceLogger,
  ) {
    this.logger.setContext(IdempotencyCleanup.name);
    this.outage = new Outage(logger, 'Deleting expired idempotency keys', CLEANUP_INTERVAL_MS);
  }

  onApplicationBootstrap(): void {
    void this.deleteExpired();
  }

  @Interval('idempotency-cleanup', CLEANUP_INTERVAL_MS)
  async deleteExpired(): Promise<void> {
    try {
      const deleted = await this.idempotency.deleteExpired();
      this.outage.succeeded();
      if (deleted > 0)
        this.logger.info({ event: 'idempotency_keys_expired', deleted }, 'Expired keys deleted');
    } catch (error) {
      this.outage.failed(error);
    }
  }
}
