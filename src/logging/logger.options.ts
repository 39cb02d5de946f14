import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { LevelWithSilent } from 'pino';
import { type HttpLogger, pinoHttp } from 'pino-http';
import prettyStream from 'pino-pretty';
import type { LogLevel } from '../config/environment';

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

type RoutedRequest = IncomingMessage & {
  route?: { path?: string };
  authTokenId?: number;
  dbQueries?: number;
};

export function requestId(request: IncomingMessage, response: ServerResponse): string {
  const given = request.headers['x-request-id'];
  const id = typeof given === 'string' && CLIENT_REQUEST_ID.test(given) ? given : randomUUID();
  response.setHeader('X-Request-Id', id);
  return id;
}

const routeAndToken = (request: RoutedRequest) => ({
  route: request.route?.path,
  tokenId: request.authTokenId,
  dbQueries: request.dbQueries,
});

/**
 * One JSON line per request: method, path, route, status, duration, request id, token id. Never headers or
 * bodies. Mounted as the first middleware, so requests the body parser rejects are logged and carry an id too.
 * `pretty`: one readable line per entry for a developer's terminal (pino-pretty) instead of JSON.
 */
export function createHttpLogger(level: LogLevel, pretty = false): HttpLogger {
  return pinoHttp<IncomingMessage, ServerResponse, never>(
    {
      level,
      genReqId: requestId,
      customAttributeKeys: { reqId: 'requestId', responseTime: 'durationMs' },
      quietReqLogger: true,
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      serializers: {
        req: (request: { method: string; url: string }) => ({
          method: request.method,
          path: request.url.split('?')[0],
        }),
        res: (response: { statusCode: number }) => ({ status: response.statusCode }),
      },
      customSuccessObject: (request, _response, fields: object) => ({ ...fields, ...routeAndToken(request) }),
      customErrorObject: (request, _response, _error, fields: object) => ({
        ...fields,
        ...routeAndToken(request),
      }),
      customLogLevel: (_request, response, error): LevelWithSilent =>
        error || response.statusCode >= 500 ? 'error' : response.statusCode >= 400 ? 'warn' : 'info',
      customSuccessMessage: () => 'request completed',
      customErrorMessage: () => 'request failed',
    },
    pretty
      ? prettyStream({
          ignore: 'pid,hostname,req,res',
          translateTime: 'SYS:HH:MM:ss.l',
          singleLine: true,
          messageFormat: '{msg}{if req.method}: {req.method} {req.path} {res.status} in {durationMs} ms{end}',
        })
      : undefined,
  );
}
