import type { INestApplication } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import type { Middleware } from '../http/middleware-sequence';
import { routeTemplate } from '../logging/request-route';
import { AppMetrics } from './app-metrics';

/** The route label of a request no route matched (unknown paths, bodies refused before routing). */
const UNMATCHED = 'unmatched';
/** The catch-all through which Nest answers unknown paths with 404. */
const NOT_FOUND_ROUTE = '{/*splat}';

/**
 * Times every request from the first middleware to the last byte sent, labelled with the route template
 * (`/api/v2/order/:id`, `/console/*`: never the path itself), method and status; counts 429s as rate-limit refusals (the
 * rate limit is the only source of a 429). The middleware to mount first; none when metrics are off.
 */
export function httpMetrics(app: INestApplication): Middleware[] {
  const metrics = app.get(AppMetrics);
  if (!metrics.enabled) return [];
  const middleware = (request: Request, response: Response, next: NextFunction) => {
    const started = process.hrtime.bigint();
    response.once('finish', () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const template = routeTemplate(request);
      const route = template && template !== NOT_FOUND_ROUTE ? template : UNMATCHED;
      metrics.httpRequestDuration.observe(
        { method: request.method, route, status: response.statusCode },
        seconds,
      );
      if (response.statusCode === 429) metrics.rateLimitRefusals.inc();
    });
    next();
  };
  return [middleware];
}
