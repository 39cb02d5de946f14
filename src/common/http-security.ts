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
 * Security headers on every response; CORS only for the origins configured (none by default: partners call
 * the API from servers, and a browser page elsewhere gets no access).
 */
export function secureHttp(app: NestExpressApplication, corsOrigins: string[]): void {
  app.use(helmet(SECURITY_HEADERS));
  if (corsOrigins.length > 0) app.enableCors({ origin: corsOrigins, exposedHeaders: EXPOSED_HEADERS });
}
