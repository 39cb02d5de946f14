import { Inject, Injectable, type LoggerService, Scope } from '@nestjs/common';
import type { Logger } from 'pino';
import { type LogFields, writeFrameworkLine, writeServiceLine } from './log-lines';

/** The pino instance everything logs through (createRequestLog's for the API, stderr's for the CLI). */
export const ROOT_LOGGER = Symbol('ROOT_LOGGER');

/**
 * A service's logger: `setContext(Service.name)` once, then `info({ ...fields }, 'message')`. Inside a request
 * the line goes through the request's child logger, so it carries the request id; elsewhere through the root.
 */
@Injectable({ scope: Scope.TRANSIENT })
export class ServiceLogger {
  private context = '';

  constructor(@Inject(ROOT_LOGGER) private readonly root: Logger) {}

  setContext(context: string): void {
    this.context = context;
  }

  info(fields: LogFields, message: string): void {
    writeServiceLine(this.root, 'info', this.context, fields, message);
  }

  warn(fields: LogFields, message: string): void {
    writeServiceLine(this.root, 'warn', this.context, fields, message);
  }

  error(fields: LogFields, message: string): void {
    writeServiceLine(this.root, 'error', this.context, fields, message);
  }
}

/** The framework's own messages (start-up, routes, Nest's exception handlers), given to app.useLogger. */
@Injectable()
export class FrameworkLogger implements LoggerService {
  constructor(@Inject(ROOT_LOGGER) private readonly root: Logger) {}

  verbose(message: unknown, ...optionalParams: unknown[]): void {
    writeFrameworkLine(this.root, 'trace', message, optionalParams);
  }

  debug(message: unknown, ...optionalParams: unknown[]): void {
    writeFrameworkLine(this.root, 'debug', message, optionalParams);
  }

  log(message: unknown, ...optionalParams: unknown[]): void {
    writeFrameworkLine(this.root, 'info', message, optionalParams);
  }

  warn(message: unknown, ...optionalParams: unknown[]): void {
    writeFrameworkLine(this.root, 'warn', message, optionalParams);
  }

  error(message: unknown, ...optionalParams: unknown[]): void {
    writeFrameworkLine(this.root, 'error', message, optionalParams);
  }

  fatal(message: unknown, ...optionalParams: unknown[]): void {
    writeFrameworkLine(this.root, 'fatal', message, optionalParams);
  }
}
