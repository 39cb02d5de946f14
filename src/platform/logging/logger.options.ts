import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type DestinationStream, type Logger, pino } from 'pino';
import prettyStream from 'pino-pretty';
import type { LogLevel } from '../config/environment';
import { type RequestContext, runInRequestContext } from '../http/request-context';
import { RequestEnds } from '../http/request-ends';
import { type RoutedRequest, routeTemplate } from './request-route';

declare module 'http' {
  interface IncomingMessage {
    /** The request id: the client's X-Request-Id when sane, else a UUID (set by the request log's middleware). */
    id?: string;
  }
}

/** A client's own X-Request-Id is echoed when it is a sane token; anything else is replaced. */
const CLIENT_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Paths of anything secret that could reach a log line; we never log headers or bodies, this is the net.
 * TypeORM's QueryFailedError carries the statement's parameters, and PostgreSQL's `detail` can quote a whole
 * failing row ("Failing row contains (...)"): an order's personal data and device credentials.
 */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers["proxy-authorization"]',
  'req.headers.cookie',
  'req.body.login',
  'req.body.password',
  'err.parameters',
  'err.detail',
  'err.driverError.parameters',
  'err.driverError.detail',
  'token',
  'secret',
  'password',
  'login',
  '*.token',
  '*.secret',
  '*.password',
  '*.login',
];

type LoggedRequest = IncomingMessage &
  RequestContext &
  RoutedRequest & {
    /** The path as the client sent it: a mounted middleware sees `url` without its mount. */
    originalUrl?: string;
    authTokenId?: number;
  };

export function requestId(request: IncomingMessage, response: ServerResponse): string {
  const given = request.headers['x-request-id'];
  const id = typeof given === 'string' && CLIENT_REQUEST_ID.test(given) ? given : randomUUID();
  response.setHeader('X-Request-Id', id);
  return id;
}

/** Where the lines go instead of stdout: anything pino can write to (the in-process specs collect them). */
export type LogDestination = DestinationStream;

export interface RequestLog {
  /** The process's logger: everything logs through it, to stdout. */
  logger: Logger;
  /**
   * Express middleware: the request id, the request's context (the request itself: its id, its child logger
   * once something logs, its statement count) for the code that serves it, and its one line when it ends.
   */
  middleware: (request: IncomingMessage, response: ServerResponse, next: () => void) => void;
  /** Every request that ended, after its line: the modules that keep a record of requests listen here. */
  ends: RequestEnds;
}

/**
 * One JSON line per request: method, path, route, status, duration, request id, token id, statement count,
 * and with `logSql` (LOG_SQL) the statements' text, never their parameters. Never headers or bodies. Mounted as the first middleware, so requests the body parser rejects are logged and
 * carry an id too.
 *
 * Lines go to stdout through an asynchronous destination: a request never waits for a write, and lines written
 * while one write is in flight leave together in the next. What is still buffered when the process exits is
 * written synchronously on the way out (pino registers that flush on `exit`; `flush` is for an orderly stop).
 * `pretty`: one readable line per entry for a developer's terminal (pino-pretty) instead of JSON.
 */
export function createRequestLog(
  level: LogLevel,
  pretty = false,
  logSql = false,
  given?: LogDestination,
): RequestLog {
  const destination =
    given ??
    (pretty
      ? prettyStream({
          ignore: 'pid,hostname,req,res',
          translateTime: 'SYS:HH:MM:ss.l',
          singleLine: true,
          messageFormat: '{msg}{if req.method}: {req.method} {req.path} {res.status} in {durationMs} ms{end}',
        })
      : pino.destination({ dest: 1, sync: false }));
  const logger = pino({ level, redact: { paths: REDACTED_PATHS, censor: '[redacted]' } }, destination);
  // The request lines are built here from named scalars only, so they skip the redaction walk (which copied
  // every line's object: a tenth of what a request allocated).
  const lines = pino({ level }, destination);
  const ends = new RequestEnds();
  const middleware = (incoming: IncomingMessage, response: ServerResponse, next: () => void) => {
    const request = incoming as LoggedRequest;
    const startedAt = Date.now();
    const id = requestId(request, response);
    request.id = id;
    request.dbQueries = 0;
    if (logSql) request.sql = [];
    let logged = false;
    const done = () => {
      if (logged) return;
      logged = true;
      const status = response.statusCode;
      const path = (request.originalUrl ?? request.url)?.split('?')[0];
      const durationMs = Date.now() - startedAt;
      const route = routeTemplate(request);
      const line = {
        requestId: id,
        req: { method: request.method, path },
        res: { status },
        durationMs,
        route,
        tokenId: request.authTokenId,
        dbQueries: request.dbQueries,
        sql: request.sql,
      };
      if (status >= 500)
        lines.error({ ...line, err: new Error(`failed with status code ${status}`) }, 'request failed');
      else lines[status >= 400 ? 'warn' : 'info'](line, 'request completed');
      if (ends.listened) ends.emit({ request, status, startedAt, durationMs, route, path: path ?? '' });
    };
    response.once('finish', done);
    response.once('close', done);
    runInRequestContext(request, next);
  };
  return { logger, middleware, ends };
}
