import { Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { SchedulerRegistry } from '@nestjs/schedule';
import type { Environment } from '../platform/config/environment';
import { configuredDuties } from '../platform/config/service-role';
import { Outage } from '../platform/database/outage';
import { ServiceLogger } from '../platform/logging/loggers';
import { IdempotencyService } from './idempotency.service';

const CLEANUP_INTERVAL_MS = 10 * 60 * 1000;

/**
 * Deletes expired Idempotency-Keys at start and every 10 minutes, on every instance whose SERVICE_ROLE runs the
 * periodic jobs (`all`, `worker`); deleting what another instance already deleted is harmless, and an expired
 * key is ignored by lookups anyway. A database outage is one warning when a run first fails and one line when
 * a later run succeeds (no stack at every run). The interval is the scheduler's, cleared at shutdown.
 */
@Injectable()
export class IdempotencyCleanup implements OnApplicationBootstrap {
  private readonly outage: Outage;
  private readonly enabled: boolean;

  constructor(
    private readonly idempotency: IdempotencyService,
    private readonly logger: ServiceLogger,
    private readonly scheduler: SchedulerRegistry,
    config: ConfigService<Environment, true>,
  ) {
    this.logger.setContext(IdempotencyCleanup.name);
    this.outage = new Outage(logger, 'Deleting expired idempotency keys', CLEANUP_INTERVAL_MS);
    this.enabled = configuredDuties(config).jobs;
  }

  onApplicationBootstrap(): void {
    if (!this.enabled) return;
    void this.deleteExpired();
    this.scheduler.addInterval(
      'idempotency-cleanup',
      setInterval(() => void this.deleteExpired(), CLEANUP_INTERVAL_MS),
    );
  }

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
