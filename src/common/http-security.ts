import type { IncomingMessage, ServerResponse } from 'node:http';
import type { NestExpressApplication } from '@nestjs/platform-express';
import helmet from 'helmet';

/**
 * helmet's defaults (OWASP API8), with a Content-Security-Policy that lets the Swagger UI at /api/docs use its
 * inline styles and data: images; it serves no inline script, so scripts stay 'self' only.
 */
const SECURITY_HEADERS: Parameters<typeof helmet>[0] = {
  contentSecurityPolicy: {
    directives: { 'img-src': ["'self'", 'data:'], 'style-src': ["'self'", "'unsafe-inline'"] },
  },
};

/** The response headers a browser client of CORS_ORIGINS may read. */
const EXPOSED_HEADERS = [
  'X-Request-Id',
  'ETag',
  'Retry-After',
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'Idempotent-Replayed',
];

/**
 * The headers helmet sets with these options. They do not depend on the request, so helmet runs once, at
 * start, against a response that only records them, and every response gets the recorded list.
 */
function securityHeaders(): [string, string][] {
  const headers: [string, string][] = [];
  const recorder = {
    setHeader: (name: string, value: string) => headers.push([name, value]),
    removeHeader: () => undefined,
  };
  helmet(SECURITY_HEADERS)({} as IncomingMessage, recorder as unknown as ServerResponse, () => undefined);
  return headers;
}

/**
 * Security headers on every response; CORS only for the origins configured (none by default: partners call
 * the API from servers, and a browser page elsewhere gets no access).
 */
export function secureHttp(app: NestExpressApplication, corsOrigins: string[]): void {
  const headers = securityHeaders();
  app.use((_request: IncomingMessage, response: ServerResponse, next: () => void) => {
    for (const [name, value] of headers) response.setHeader(name, value);
    next();
  });
  if (corsOrigins.length > 0) app.enableCors({ origin: corsOrigins, exposedHeaders: EXPOSED_HEADERS });
}
