import { Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { HealthIndicatorService } from '@nestjs/terminus';
import type { Environment } from '../config/environment';
import { JobLog } from '../logging/job-log';

/**
 * Whether a worker's background jobs run: down while an iteration has outrun its bound (a dispatcher or a
 * periodic job stuck on something), so a worker that cannot do its work is not ready. Only a worker
 * (SERVICE_ROLE=worker) checks it: an `all` instance's readiness stays what the load balancer needs for the API.
 */
@Injectable()
export class JobsHealthIndicator {
  readonly applies: boolean;

  constructor(
    private readonly jobLog: JobLog,
    private readonly health: HealthIndicatorService,
    config: ConfigService<Environment, true>,
  ) {
    this.applies = config.get('SERVICE_ROLE', { infer: true }) === 'worker';
  }

  check(key: string) {
    const indicator = this.health.check(key);
    const stalled = this.jobLog.stalled();
    return stalled.length === 0 ? indicator.up() : indicator.down({ stalled });
  }
}
