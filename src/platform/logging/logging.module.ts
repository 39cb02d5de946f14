import { type DynamicModule, Module } from '@nestjs/common';
import type { Logger } from 'pino';
import { RequestEnds } from '../http/request-ends';
import { JobLog } from './job-log';
import { FrameworkLogger, ROOT_LOGGER, ServiceLogger } from './loggers';

/**
 * Nest's side of the logging: the framework's messages (FrameworkLogger, given to app.useLogger) and each
 * service's logger (ServiceLogger), both over the one pino instance, so they share its destination and
 * redaction. The request line itself is the middleware's (createRequestLog); a background job's, JobLog's.
 */
@Module({})
export class LoggingModule {
  /** `ends`: the request log middleware's, for the API; the CLI serves no request and hears of none. */
  static forRoot(logger: Logger, ends = new RequestEnds()): DynamicModule {
    return {
      module: LoggingModule,
      global: true,
      providers: [
        { provide: ROOT_LOGGER, useValue: logger },
        { provide: RequestEnds, useValue: ends },
        FrameworkLogger,
        ServiceLogger,
        JobLog,
      ],
      exports: [FrameworkLogger, ServiceLogger, JobLog, RequestEnds],
    };
  }
}
