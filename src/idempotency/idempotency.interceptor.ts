import {
  applyDecorators,
  type CallHandler,
  type ExecutionContext,
  Injectable,
  type NestInterceptor,
  UseInterceptors,
} from '@nestjs/common';
import { HTTP_CODE_METADATA } from '@nestjs/common/constants';
import { ConfigService } from '@nestjs/config';
import { Reflector } from '@nestjs/core';
import { ApiHeader } from '@nestjs/swagger';
import type { Response } from 'express';
import { catchError, defer, lastValueFrom, map, type Observable, throwError } from 'rxjs';
import { type AuthenticatedRequest, callerCompanyOf } from '../kernel/access/access.decorators';
import { ReplayedErrorResponse } from '../platform/http/error-responses';
import { DOCS_PATH, publicBaseUrl } from '../platform/http/public-url';
import type { Environment } from '../platform/config/environment';
import { IDEMPOTENCY_KEY_HEADER, REPLAYED_HEADER } from '../platform/http/idempotency-headers';
import { invalidIdempotencyKey } from './idempotency.errors';
import { type Answer, IdempotencyService } from './idempotency.service';
import { IDEMPOTENCY_KEY_PATTERN, isValidIdempotencyKey, requestFingerprint } from './request-fingerprint';

const ETAG_HEADER = 'ETag';

/** Runs the route under its Idempotency-Key when the request carries one (after auth and rate limit). */
@Injectable()
export class IdempotencyInterceptor implements NestInterceptor {
  constructor(
    private readonly idempotency: IdempotencyService,
    private readonly reflector: Reflector,
    private readonly config: ConfigService<Environment, true>,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const http = context.switchToHttp();
    const request = http.getRequest<AuthenticatedRequest>();
    const key = request.headers[IDEMPOTENCY_KEY_HEADER.toLowerCase()];
    if (key === undefined) return next.handle();
    if (typeof key !== 'string' || !isValidIdempotencyKey(key)) throw invalidIdempotencyKey();
    const response = http.getResponse<Response>();
    const markReplayed = () => response.setHeader(REPLAYED_HEADER, 'true');
    const idempotent = {
      companyId: callerCompanyOf(request),
      key,
      fingerprint: requestFingerprint(request.method, request.path, request.body),
      successStatus:
        this.reflector.get<number | undefined>(HTTP_CODE_METADATA, context.getHandler()) ??
        (request.method === 'POST' ? 201 : 200),
      docsUrl: publicBaseUrl(request, this.config.get('PUBLIC_BASE_URL', { infer: true })) + DOCS_PATH,
    };
    const answer = async (): Promise<Answer> => {
      const body: unknown = await lastValueFrom(next.handle());
      const etag = response.getHeader(ETAG_HEADER);
      return typeof etag === 'string' ? { body, etag } : { body };
    };
    return defer(() => this.idempotency.run(idempotent, answer)).pipe(
      map((outcome) => {
        if (outcome.replayed) {
          markReplayed();
          if (outcome.etag !== undefined) response.setHeader(ETAG_HEADER, outcome.etag);
        }
        return outcome.body;
      }),
      catchError((error: unknown) => {
        if (error instanceof ReplayedErrorResponse) markReplayed();
        return throwError(() => error);
      }),
    );
  }
}

/** The route is carried out at most once per company and Idempotency-Key (CONTRACT §4). */
export const Idempotent = () =>
  applyDecorators(
    UseInterceptors(IdempotencyInterceptor),
    ApiHeader({
      name: IDEMPOTENCY_KEY_HEADER,
      required: false,
      description:
        'A key you choose (1–255 visible ASCII characters, e.g. a UUID) to retry this request safely: within 24 ' +
        'hours it is carried out at most once for your company. A repeat with the same body gets the first ' +
        'status and body again, with the header `Idempotent-Replayed: true`; the same key with another body or ' +
        'route gets 422; a repeat while the first is still running gets 409. Errors 5xx are not kept: retry them.',
      schema: {
        type: 'string',
        minLength: 1,
        maxLength: 255,
        pattern: IDEMPOTENCY_KEY_PATTERN.source,
        example: '4f1c2a0e-8c1b-4d7e-9a55-0b7f1d2e3c4a',
      },
    }),
  );
