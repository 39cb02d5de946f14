import type { CallHandler, ExecutionContext, NestInterceptor } from '@nestjs/common';
import { json } from 'body-parser';
import type { Request, RequestHandler, Response } from 'express';
import { from, type Observable, switchMap } from 'rxjs';
import { DomainError } from '../../kernel/domain-error';

/** CONTRACT §2: JSON nested deeper than this is refused before anything walks it. */
export const MAX_JSON_DEPTH = 32;

const OPEN_BRACKET = 0x5b;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACKET = 0x5d;
const CLOSE_BRACE = 0x7d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * How deeply a JSON text nests arrays and objects, counted over its bytes in one pass (brackets inside
 * strings do not count); it stops counting once `limit` is passed.
 */
export function jsonDepthExceeds(text: Uint8Array, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let index = 0; index < text.length; index += 1) {
    const byte = text[index];
    if (inString) {
      if (byte === BACKSLASH) index += 1;
      else if (byte === QUOTE) inString = false;
    } else if (byte === QUOTE) {
      inString = true;
    } else if (byte === OPEN_BRACKET || byte === OPEN_BRACE) {
      depth += 1;
      if (depth > limit) return true;
    } else if (byte === CLOSE_BRACKET || byte === CLOSE_BRACE) {
      depth -= 1;
    }
  }
  return false;
}

/** Whether a request's headers say its body is anything but UTF-8 JSON (no Content-Type says nothing). */
function unsupportedMedia(request: Request): boolean {
  const contentType = request.headers['content-type'];
  if (contentType === undefined) return true;
  const [mediaType, ...parameters] = contentType.split(';');
  if (mediaType.trim().toLowerCase() !== 'application/json') return true;
  return parameters.some((parameter) => {
    const [name, value = ''] = parameter.split('=');
    return name.trim().toLowerCase() === 'charset' && !/^"?utf-8"?$/i.test(value.trim());
  });
}

/** A body is coming: chunked, or a non-zero length (a POST with `Content-Length: 0` carries none). */
function carriesBody(request: Request): boolean {
  const length = request.headers['content-length'];
  return request.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

const TOO_DEEP = 'entity.nested.too.deeply';

function refuseDeepNesting(_request: Request, _response: Response, body: Buffer): void {
  if (jsonDepthExceeds(body, MAX_JSON_DEPTH))
    throw Object.assign(new Error('Nested too deeply.'), { type: TOO_DEEP });
}

const STREAMED_BODY = 'request-body:streamed';

/**
 * On a route that reads its own body as a stream (a bulk import's file, CONTRACT §4.11): the gate below lets
 * the body through unread, and the route applies its own media types, limits and timeouts.
 */
export const StreamedBody =
  (): MethodDecorator =>
  (_target, _key, descriptor): void =>
    // What Nest's SetMetadata does, without importing @nestjs/common at run time: this file's rules are unit
    // tested in jest's sandbox, which cannot load Nest's ES modules.
    Reflect.defineMetadata(STREAMED_BODY, true, descriptor.value as object);

export interface RequestBodyOptions {
  /** The largest body accepted, in bytes (body-parser's notation, e.g. '1mb'): more is a 413. */
  limit: string;
  /** How long the whole body may take to arrive: after that, a 408 and the connection is closed. */
  timeoutMs: number;
}

/**
 * The one gate every request's body crosses (CONTRACT §2, hostile input), before the route sees it: UTF-8
 * JSON only (415 otherwise: another media type, another charset, an unknown Content-Encoding); the whole body
 * within `timeoutMs` (408); at most `limit` bytes (413); nested at most MAX_JSON_DEPTH levels, checked over the
 * raw bytes before JSON.parse (400). Requests without a body pass straight through.
 *
 * A global interceptor, so it runs after the guards: a request without a valid token, over its rate limit or
 * on a route its role may not call gets its 401, 429 or 403 without its body read or parsed: callers who may
 * not send one cannot spend the CPU that reading and parsing 1 MiB bodies costs every other tenant.
 */
export class RequestBodyInterceptor implements NestInterceptor {
  private readonly parse: RequestHandler;

  constructor(private readonly options: RequestBodyOptions) {
    this.parse = json({ limit: options.limit, verify: refuseDeepNesting });
  }

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const http = context.switchToHttp();
    const request = http.getRequest<Request>();
    if (!carriesBody(request) || Reflect.getMetadata(STREAMED_BODY, context.getHandler()) === true)
      return next.handle();
    return from(this.read(request, http.getResponse<Response>())).pipe(switchMap(() => next.handle()));
  }

  private read(request: Request, response: Response): Promise<void> {
    if (unsupportedMedia(request)) return Promise.reject(new DomainError('UNSUPPORTED_MEDIA_TYPE'));
    return new Promise((resolve, reject) => {
      let settled = false;
      const timer = setTimeout(() => {
        settled = true;
        response.setHeader('Connection', 'close');
        reject(new DomainError('REQUEST_TIMEOUT'));
      }, this.options.timeoutMs);
      void this.parse(request, response, (error?: unknown) => {
        clearTimeout(timer);
        if (settled) return;
        settled = true;
        if (error === undefined) resolve();
        else reject(bodyError(error as Error));
      });
    });
  }
}

/** body-parser's refusals as the contract's errors: from an interceptor they reach the exception filter as they are. */
function bodyError(error: Error): Error {
  const { type, status } = error as Error & { type?: unknown; status?: unknown };
  if (type === TOO_DEEP) return new DomainError('NESTED_TOO_DEEPLY');
  if (type === 'entity.parse.failed') return new DomainError('MALFORMED_JSON');
  if (status === 413) return new DomainError('PAYLOAD_TOO_LARGE');
  if (status === 415) return new DomainError('UNSUPPORTED_MEDIA_TYPE');
  if (status === 400) return new DomainError('BAD_REQUEST');
  return error;
}
