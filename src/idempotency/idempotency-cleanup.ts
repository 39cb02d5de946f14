import { Injectable } from '@nestjs/common';
import { PeriodicJobs, type RunReport } from '../platform/jobs/periodic-job';
import { ServiceLogger } from '../platform/logging/loggers';
import { IdempotencyService } from './idempotency.service';

const CLEANUP_INTERVAL_MS = 10 * 60 * 1000;

/**
 * Deletes expired Idempotency-Keys: a periodic job (at start and every 10 minutes, where SERVICE_ROLE runs the
 * periodic jobs). Deleting what another instance already deleted is harmless, and an expired key is ignored by
 * lookups anyway.
 */
@Injectable()
export class IdempotencyCleanup {
  constructor(
    private readonly idempotency: IdempotencyService,
    logger: ServiceLogger,
    jobs: PeriodicJobs,
  ) {
    logger.setContext(IdempotencyCleanup.name);
    jobs.add({
      name: 'idempotency-cleanup',
      intervalMs: CLEANUP_INTERVAL_MS,
      work: 'Deleting expired idempotency keys',
      logger,
      run: (until) => this.deleteExpired(until),
    });
  }

  private async deleteExpired(until: number): Promise<RunReport | undefined> {
    const deleted = await this.idempotency.deleteExpired(until);
    return deleted > 0
      ? { fields: { event: 'idempotency_keys_expired', deleted }, message: 'Expired keys deleted' }
      : undefined;
  }
}
