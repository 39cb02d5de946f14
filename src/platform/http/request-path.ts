import type { NextFunction, Request, Response } from 'express';
import { DomainError } from '../../kernel/domain-error';

/** Whether the path of a request URL (the part before `?`) has a percent-encoding that does not decode. */
export function hasMalformedPath(url: string): boolean {
  if (!url.includes('%')) return false;
  try {
    decodeURIComponent(url.split('?')[0]);
    return false;
  } catch {
    return true;
  }
}

/**
 * A path that cannot be decoded (`/api/v2/%E0%A4%A`) is a bad request (400) whatever the route, not a 404.
 * Express only decodes the segments a route captures as parameters, so without this a malformed path that
 * names no route would be answered 404.
 */
export function refuseMalformedPath(request: Request, _response: Response, next: NextFunction): void {
  next(hasMalformedPath(request.url) ? new DomainError('BAD_REQUEST') : undefined);
}
