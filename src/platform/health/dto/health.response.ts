import { ApiProperty, type ApiPropertyOptions } from '@nestjs/swagger';

const INDICATORS: ApiPropertyOptions = {
  type: 'object',
  description: 'One entry per check, by name (none for liveness).',
  additionalProperties: {
    type: 'object',
    required: ['status'],
    properties: { status: { type: 'string', enum: ['up', 'down'] } },
    additionalProperties: true,
  },
  example: { database: { status: 'up' } },
};

/** A passing health check (terminus' shape). A failing one is the contract's 503 body. */
export class HealthResponse {
  @ApiProperty({ enum: ['ok'], example: 'ok' })
  status!: 'ok';
  @ApiProperty(INDICATORS)
  info!: Record<string, unknown>;
  @ApiProperty(INDICATORS)
  error!: Record<string, unknown>;
  @ApiProperty(INDICATORS)
  details!: Record<string, unknown>;
}
