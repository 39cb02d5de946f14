import { Controller, Get } from '@nestjs/common';
import {
  ApiExtraModels,
  ApiOperation,
  ApiServiceUnavailableResponse,
  ApiTags,
  getSchemaPath,
} from '@nestjs/swagger';
import { HealthCheck, HealthCheckService, TypeOrmHealthIndicator } from '@nestjs/terminus';
import { Public } from '../auth/auth.decorators';
import { MessageBody } from '../common/openapi.decorators';

@ApiTags('health')
@Public()
@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly database: TypeOrmHealthIndicator,
  ) {}

  /** The process is up and serving HTTP. Touches nothing else. */
  @Get('live')
  @HealthCheck()
  @ApiOperation({ summary: 'Liveness: the process answers.' })
  live() {
    return this.health.check([]);
  }

  /** The service can do its work: the database answers within a second. 503 otherwise. */
  @Get('ready')
  // The 503 body is the contract's, written by the exception filter, not the one terminus documents.
  @ApiServiceUnavailableResponse({
    description: 'The database does not answer.',
    schema: { $ref: getSchemaPath(MessageBody) },
    example: { message: 'Service unavailable.' },
  })
  @ApiExtraModels(MessageBody)
  @HealthCheck()
  @ApiOperation({ summary: 'Readiness: the database answers (503 when it does not).' })
  ready() {
    return this.health.check([() => this.database.pingCheck('database', { timeout: 1_000 })]);
  }
}
