import { Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { Interval } from '@nestjs/schedule';
import { ServiceLogger } from '../platform/logging/loggers';
import { IdempotencyService } from './idempotency.service';

const CLEANUP_INTERVAL_MS = 10 * 60 * 1000;

/**
 * Deletes expired Idempotency-Keys at start and every 10 minutes. Every instance runs it; deleting what
 * another instance already deleted is harmless, and an expired key is ignored by lookups anyway.
 */
@Injectable()
export class IdempotencyCleanup implements OnApplicationBootstrap {
  constructor(
    private readonly idempotency: IdempotencyService,
    private readonly logger: ServiceLogger,
  ) {
    this.logger.setContext(IdempotencyCleanup.name);
  }

  onApplicationBootstrap(): void {
    void this.deleteExpired();
  }

  @Interval('idempotency-cleanup', CLEANUP_INTERVAL_MS)
  async deleteExpired(): Promise<void> {
    try {
      const deleted = await this.idempotency.deleteExpired();
      if (deleted > 0)
        this.logger.info({ event: 'idempotency_keys_expired', deleted }, 'Expired keys deleted');
    } catch (error) {
      this.logger.warn({ err: error }, 'Could not delete expired idempotency keys; retrying at the next run');
    }
  }
}
