import type { ConfigService } from '@nestjs/config';
import type { Environment } from './environment';

/** What an instance does, from SERVICE_ROLE and the deprecated WEBHOOK_DISPATCHER. */
export interface Duties {
  /** The API routes, the OpenAPI document and the admin console (`all`, `api`). */
  api: boolean;
  /** The webhook dispatcher: `all` and `worker`, unless WEBHOOK_DISPATCHER=false (deprecated) turns it off. */
  dispatcher: boolean;
  /** The periodic jobs (the idempotency keys' cleanup, the webhook delivery log's purge): `all` and `worker`. */
  jobs: boolean;
}

export function dutiesOf(env: Pick<Environment, 'SERVICE_ROLE' | 'WEBHOOK_DISPATCHER'>): Duties {
  const background = env.SERVICE_ROLE !== 'api';
  return {
    api: env.SERVICE_ROLE !== 'worker',
    dispatcher: background && env.WEBHOOK_DISPATCHER !== false,
    jobs: background,
  };
}

/** The duties, from the validated environment Nest's ConfigService holds. */
export function configuredDuties(config: ConfigService<Environment, true>): Duties {
  return dutiesOf({
    SERVICE_ROLE: config.get('SERVICE_ROLE', { infer: true }),
    WEBHOOK_DISPATCHER: config.get('WEBHOOK_DISPATCHER', { infer: true }),
  });
}
