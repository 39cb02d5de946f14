import { applyDecorators, Controller, Get } from '@nestjs/common';
import {
  ApiExtraModels,
  ApiOkResponse,
  ApiOperation,
  ApiServiceUnavailableResponse,
  ApiTags,
  getSchemaPath,
} from '@nestjs/swagger';
import { HealthCheck, HealthCheckService, TypeOrmHealthIndicator } from '@nestjs/terminus';
import { Public } from '../../kernel/access/access.decorators';
import { MessageBody } from '../openapi/openapi.decorators';
import { DirectSessionHealthIndicator } from './direct-session.health';
import { HealthResponse } from './dto/health.response';
import { JobsHealthIndicator } from './jobs.health';
import { MigrationsHealthIndicator } from './migrations.health';

/** A 503 with the contract's body, written by the exception filter (not the one terminus documents). */
const ApiUnavailable = (description: string) =>
  applyDecorators(
    ApiExtraModels(MessageBody),
    ApiServiceUnavailableResponse({
      description,
      schema: { $ref: getSchemaPath(MessageBody) },
      example: { message: 'Service unavailable.' },
    }),
  );

@ApiTags('health')
@Public()
@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly database: TypeOrmHealthIndicator,
    private readonly migrations: MigrationsHealthIndicator,
    private readonly jobs: JobsHealthIndicator,
    private readonly directSession: DirectSessionHealthIndicator,
  ) {}

  /** The process is up and serving HTTP. Touches nothing else. */
  @Get('live')
  @ApiUnavailable('The service is shutting down.')
  @HealthCheck({ swaggerDocumentation: false })
  @ApiOkResponse({ type: HealthResponse })
  @ApiOperation({ operationId: 'getLiveness', summary: 'Liveness: the process answers.', security: [] })
  live() {
    return this.health.check([]);
  }

  /**
   * The service can do its work: the database answers within a second and is migrated, and on a worker no
   * background job's iteration has outrun its bound. 503 otherwise. While the direct database session does not
   * answer (`direct_session`), it stays 200 with the status `degraded`: every route but the export is served.
   */
  @Get('ready')
  @ApiUnavailable('The database does not answer.')
  @HealthCheck({ swaggerDocumentation: false })
  @ApiOkResponse({ type: HealthResponse })
  @ApiOperation({
    operationId: 'getReadiness',
    summary: 'Readiness: the database answers (503 when it does not).',
    security: [],
  })
  ready() {
    return this.health.check([
      () => this.database.pingCheck('database', { timeout: 1_000 }),
      () => this.migrations.check('migrations'),
      () => this.directSession.check('direct_session'),
      ...(this.jobs.applies ? [() => this.jobs.check('jobs')] : []),
    ]);
  }
}
