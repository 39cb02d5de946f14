import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { Request, Response } from 'express';
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

/**
 * The version an If-Match header asks for: `"5"` (or weak `W/"5"`); undefined when absent or `*`, which asks
 * for nothing. Anything else is a 400, not a silent pass.
 */
export function versionFromIfMatch(header: string | undefined): number | undefined {
  if (header === undefined || header.trim() === '*') return undefined;
  const match = /^\s*(?:W\/)?"(\d{1,10})"\s*$/.exec(header);
  if (!match) throw fieldError('If-Match', 'The If-Match header must be an ETag of the order, such as "3".');
  return Number(match[1]);
}

/**
 * The order version the request's optional If-Match header asks for (undefined: none). A parameter decorator
 * of its own, unlike `@Headers('if-match')`, adds no (required) parameter to the OpenAPI document: the header
 * is documented once, as optional, by `@ApiHeader(IF_MATCH)`.
 */
export const IfMatchVersion = createParamDecorator(
  (_data: unknown, context: ExecutionContext): number | undefined =>
    versionFromIfMatch(context.switchToHttp().getRequest<Request>().headers['if-match']),
);
