import { Injectable } from '@nestjs/common';
import { HealthIndicatorService } from '@nestjs/terminus';
import { DirectSession } from '../database/direct-session';

/**
 * The direct database session (DATABASE_DIRECT_URL): `up` while it answers, else `degraded`, which keeps
 * readiness at 200 with the overall status `degraded`. Without the session the instance still serves every
 * route but the export: the caches read the database instead (tokens are checked on every request) and exports
 * answer 503 with Retry-After. A 503 would take every instance out of the load balancer at once, since they all
 * share the one direct address, for a fault that costs one route (docs/operations/troubleshooting.md).
 */
@Injectable()
export class DirectSessionHealthIndicator {
  constructor(
    private readonly session: DirectSession,
    private readonly health: HealthIndicatorService,
  ) {}

  async check(key: string) {
    const indicator = this.health.check(key);
    return (await this.session.answers())
      ? indicator.up()
      : indicator.degraded({ exports: 'unavailable', caches: 'bypassed' });
  }
}
