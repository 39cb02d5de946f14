import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';
import { versionFromIfMatch } from '../../kernel/if-match';

/**
 * The order version the request's optional If-Match header asks for (undefined: none). A parameter decorator
 * of its own, unlike `@Headers('if-match')`, adds no (required) parameter to the OpenAPI document: the header
 * is documented once, as optional, by `@ApiHeader(IF_MATCH)`.
 */
export const IfMatchVersion = createParamDecorator(
  (_data: unknown, context: ExecutionContext): number | undefined =>
    versionFromIfMatch(context.switchToHttp().getRequest<Request>().headers['if-match']),
);
