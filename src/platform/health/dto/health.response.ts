import { ApiProperty, type ApiPropertyOptions } from '@nestjs/swagger';

const INDICATORS: ApiPropertyOptions = {
  type: 'object',
  description:
    'One entry per check, by name (none for liveness): `database`, `migrations`, `direct_session` (the direct ' +
    'database session: `degraded` while it does not answer, with what that costs) and, on a worker, `jobs`.',
  additionalProperties: {
    type: 'object',
    required: ['status'],
    properties: { status: { type: 'string', enum: ['up', 'degraded', 'down'] } },
    additionalProperties: true,
  },
  example: { database: { status: 'up' }, direct_session: { status: 'up' } },
};

/** A passing health check (terminus' shape). A failing one is the contract's 503 body. */
export class HealthResponse {
  @ApiProperty({
    enum: ['ok', 'degraded'],
    example: 'ok',
    description:
      '`degraded`: ready, but a check is `degraded` (the direct database session does not answer: exports ' +
      'are refused with 503 and Retry-After, every other route is served).',
  })
  status!: 'ok' | 'degraded';
  @ApiProperty(INDICATORS)
  info!: Record<string, unknown>;
  @ApiProperty(INDICATORS)
  error!: Record<string, unknown>;
  @ApiProperty(INDICATORS)
  details!: Record<string, unknown>;
}
