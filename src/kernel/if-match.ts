import type { Response } from 'express';
import { fieldError } from './domain-error';

/** The ETag of an object with a version counter: a strong entity tag holding the number. */
export const etagOf = (version: number): string => `"${version}"`;

/**
 * Marks a response that returns an order with the order's version (CONTRACT §8): the one ETag the API sends,
 * and the one a client sends back as If-Match.
 */
export function setVersionEtag(response: Response, version: number): void {
  response.setHeader('ETag', etagOf(version));
}

/** An If-Match header the service reads: `*`, or an order version as a strong or weak ETag (`"5"`, `W/"5"`). */
export const IF_MATCH_PATTERN = /^\s*(?:\*|(?:W\/)?"(\d{1,10})")\s*$/;

/**
 * The version an If-Match header asks for: `"5"` (or weak `W/"5"`); undefined when absent or `*`, which asks
 * for nothing. Anything else is a 400, not a silent pass.
 */
export function versionFromIfMatch(header: string | undefined): number | undefined {
  if (header === undefined) return undefined;
  const match = IF_MATCH_PATTERN.exec(header);
  if (!match) throw fieldError('If-Match', 'The If-Match header must be an ETag of the order, such as "3".');
  return match[1] === undefined ? undefined : Number(match[1]);
}
