import { type ArgumentsHost, Catch, type ExceptionFilter, HttpException, HttpStatus } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { Request, Response } from 'express';
import type { Environment } from '../config/environment';
import { ServiceLogger } from '../logging/loggers';
import { isDatabaseUnavailable } from '../../kernel/database-errors';
import { DomainError } from '../../kernel/domain-error';
import { type ErrorResponse, errorResponseFor, ReplayedErrorResponse, SERVER_ERROR } from './error-responses';
import { DOCS_PATH, publicBaseUrl } from './public-url';
import type { RequestContext } from './request-context';

/** Statuses Nest or Express raise on their own, and the contract code each one answers with. */
const FRAMEWORK_STATUS_CODES: Partial<Record<number, string>> = {
  [HttpStatus.BAD_REQUEST]: 'BAD_REQUEST',
  [HttpStatus.UNAUTHORIZED]: 'UNAUTHENTICATED',
  [HttpStatus.FORBIDDEN]: 'FORBIDDEN',
  [HttpStatus.NOT_FOUND]: 'ROUTE_NOT_FOUND',
  [HttpStatus.PRECONDITION_FAILED]: 'PRECONDITION_FAILED',
  [HttpStatus.PAYLOAD_TOO_LARGE]: 'PAYLOAD_TOO_LARGE',
  [HttpStatus.REQUESTED_RANGE_NOT_SATISFIABLE]: 'RANGE_NOT_SATISFIABLE',
  [HttpStatus.TOO_MANY_REQUESTS]: 'RATE_LIMITED',
  [HttpStatus.SERVICE_UNAVAILABLE]: 'SERVICE_UNAVAILABLE',
};

function codeFor(exception: unknown): string | undefined {
  if (exception instanceof DomainError) return exception.code;
  if (exception instanceof HttpException) return FRAMEWORK_STATUS_CODES[exception.getStatus()];
  if (isDatabaseUnavailable(exception)) return 'SERVICE_UNAVAILABLE';
  return undefined;
}

/** The status and contract body an error is answered with (500 with no detail for anything unexpected). */
export function errorResponseOf(exception: unknown, docsUrl: string): ErrorResponse {
  if (exception instanceof ReplayedErrorResponse) return exception.response;
  const code = codeFor(exception);
  if (!code) return SERVER_ERROR;
  const message = exception instanceof DomainError ? exception.message : '';
  const fieldErrors = exception instanceof DomainError ? exception.fieldErrors : undefined;
  return errorResponseFor(code, message, fieldErrors, docsUrl);
}

/**
 * The one place where an error becomes a status and a body. Every body is one of CONTRACT §2; nothing
 * internal (stack, SQL, driver message) ever reaches the client.
 */
@Catch()
export class ApiExceptionFilter implements ExceptionFilter {
  constructor(
    private readonly config: ConfigService<Environment, true>,
    private readonly logger: ServiceLogger,
  ) {
    this.logger.setContext(ApiExceptionFilter.name);
  }

  catch(exception: unknown, host: ArgumentsHost): void {
    const context = host.switchToHttp();
    const request = context.getRequest<Request>();
    const response = context.getResponse<Response>();
    const docsUrl = publicBaseUrl(request, this.config.get('PUBLIC_BASE_URL', { infer: true })) + DOCS_PATH;
    const { status, body } = errorResponseOf(exception, docsUrl);
    if (status === 503) {
      this.logger.warn({ err: exception, requestId: request.id }, 'Database unavailable');
    } else if (status >= 500) {
      this.logger.error({ err: exception, requestId: request.id }, 'Unhandled error');
    }
    if (response.headersSent) return;
    (request as RequestContext & Request).errorBody = body;
    // A static file fails after it has named its own type (a 416 or 412 of /console): the body is JSON.
    response.status(status).type('json').json(body);
  }
}
