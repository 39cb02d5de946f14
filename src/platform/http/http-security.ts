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
 * What a JSON response of the API needs (OWASP REST Security Cheat Sheet, "Security headers"): no content
 * to run or frame, no MIME sniffing, HTTPS only, no referrer, no cross-origin embedding. helmet's other
 * headers (DNS prefetch, download options, origin-agent cluster, opener policy, ...) steer how a browser
 * treats a document; on a hello they were two thirds of the response's bytes.
 */
const API_HEADERS: [string, string][] = [
  ['Content-Security-Policy', "default-src 'none'; frame-ancestors 'none'"],
  ['Strict-Transport-Security', 'max-age=31536000; includeSubDomains'],
  ['X-Content-Type-Options', 'nosniff'],
  ['X-Frame-Options', 'DENY'],
  ['Referrer-Policy', 'no-referrer'],
  ['Cross-Origin-Resource-Policy', 'same-origin'],
];

/** The paths whose responses are the API's JSON (CONTRACT §2): everything else may be a document. */
const isApiPath = (url: string | undefined) => url !== undefined && /^\/(api\/v2|health)(\/|\?|$)/.test(url);

/**
 * Middleware: security headers on every response: the API's own set on its JSON routes, helmet's document
 * set on everything else (the Swagger UI and the OpenAPI document, the admin console, unknown paths).
 */
export function setSecurityHeaders(): (
  request: IncomingMessage,
  response: ServerResponse,
  next: () => void,
) => void {
  const documentHeaders = securityHeaders();
  return (request, response, next) => {
    for (const [name, value] of isApiPath(request.url) ? API_HEADERS : documentHeaders)
      response.setHeader(name, value);
    next();
  };
}

/**
 * CORS only for the origins configured (none by default: partners call the API from servers, and a browser
 * page elsewhere gets no access).
 */
export function allowCors(app: NestExpressApplication, corsOrigins: string[]): void {
  if (corsOrigins.length > 0) app.enableCors({ origin: corsOrigins, exposedHeaders: EXPOSED_HEADERS });
}
