import type { NextFunction, Request, Response } from 'express';
import { DomainError } from '../../kernel/domain-error';

/** What a worker (SERVICE_ROLE=worker) serves over HTTP: the health routes, for its orchestrator. */
const WORKER_PATHS = new Set(['/health/live', '/health/ready']);

/**
 * A worker serves no API: every other request, whatever its method, is the contract's 404 for an unknown route,
 * so a worker put behind the API's load balancer by mistake answers nothing it should not (its metrics are on
 * METRICS_PORT, as everywhere).
 */
export function onlyWorkerRoutes(request: Request, _response: Response, next: NextFunction): void {
  const known = (request.method === 'GET' || request.method === 'HEAD') && WORKER_PATHS.has(request.path);
  next(known ? undefined : new DomainError('ROUTE_NOT_FOUND'));
}
