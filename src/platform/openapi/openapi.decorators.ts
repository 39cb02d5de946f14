import { applyDecorators, type Type } from '@nestjs/common';
import { ApiExtraModels, ApiOkResponse, ApiProperty, ApiResponse, getSchemaPath } from '@nestjs/swagger';
import { MAX_PER_PAGE } from '../../kernel/pagination';

export class MessageBody {
  @ApiProperty({ example: 'Order not found.' })
  message!: string;
}

export class ValidationErrorBody {
  @ApiProperty({ example: 'Bad request.' })
  message!: string;

  @ApiProperty({
    description: 'One entry per failing field: the field name and its messages.',
    type: 'object',
    additionalProperties: { type: 'array', items: { type: 'string' } },
    example: { email: ['The email must be a valid email address.'] },
  })
  errors!: Record<string, string[]>;
}

const count = (maximum: number) => ({ type: 'integer', format: 'int32', minimum: 0, maximum }) as const;

export const RATE_HEADERS = {
  'X-RateLimit-Limit': {
    description: 'Requests allowed per minute for this token.',
    schema: count(2_147_483_647),
  },
  'X-RateLimit-Remaining': {
    description: 'Requests left in the current window.',
    schema: count(2_147_483_647),
  },
  'X-RateLimit-Reset': {
    description: 'Seconds until the current (fixed) window ends and the whole budget is there again.',
    schema: count(60),
  },
} as const;

const ERRORS: Record<number, { description: string; example: object; schema?: Type }> = {
  400: {
    description: 'Invalid request: `errors` names each bad field.',
    example: { message: 'Bad request.', errors: { field: ['The field is required.'] } },
    schema: ValidationErrorBody,
  },
  401: {
    description: 'Missing, unknown, revoked or expired token.',
    example: { message: 'Unauthenticated.' },
  },
  403: {
    description: "The token's role may not call this route, or a read-only token attempted a write.",
    example: { message: 'Forbidden.' },
  },
  404: {
    description: "Not found (another company's object looks exactly the same).",
    example: { message: 'Not found.' },
  },
  409: {
    description:
      'The object is not in a state that allows this, or a request with the same Idempotency-Key is still running.',
    example: { message: 'Order can no longer be updated: it has been sent to logistics.' },
  },
  412: {
    description: 'If-Match named a version the order no longer has: read it again.',
    example: { message: 'The order has changed since you read it (it is now at version 4): read it again.' },
  },
  413: {
    description: 'The body is over 1 MiB.',
    example: { message: 'Request body too large: the limit is 1 MiB.' },
  },
  422: {
    description: 'The Idempotency-Key was already used with a different request (another body or route).',
    example: {
      message:
        'This Idempotency-Key was already used with a different request: use a new key for a new request.',
    },
  },
  429: {
    description: 'Rate limit exceeded; see Retry-After.',
    example: { message: 'Too many requests. See the API documentation at https://api.example.com/api/docs.' },
  },
  503: {
    description: 'The database is unreachable; retry later.',
    example: { message: 'Service unavailable.' },
  },
};

/** Documents the contract's error bodies for the given statuses (plus 500, which any route may answer). */
export function ApiErrorResponses(...statuses: number[]): MethodDecorator & ClassDecorator {
  return applyDecorators(
    ApiExtraModels(MessageBody, ValidationErrorBody),
    ...[...statuses, 503].map((status) => {
      const error = ERRORS[status];
      return ApiResponse({
        status,
        description: error.description,
        content: {
          'application/json': {
            schema: { $ref: getSchemaPath(error.schema ?? MessageBody) },
            example: error.example,
          },
        },
        headers:
          status === 429
            ? {
                'Retry-After': {
                  description:
                    'Seconds to wait: on the rate limit, the seconds left in the current window (as ' +
                    'X-RateLimit-Reset), after which the whole budget is there again.',
                  schema: count(60),
                },
                ...RATE_HEADERS,
              }
            : undefined,
      });
    }),
    ApiResponse({
      status: 500,
      description: 'Unexpected failure; the body carries no detail.',
      content: {
        'application/json': {
          schema: { $ref: getSchemaPath(MessageBody) },
          example: { message: 'Server error.' },
        },
      },
    }),
  );
}

class PageLinks {
  @ApiProperty({ example: 'https://api.example.com/api/v2/order?page=1' })
  first!: string;
  @ApiProperty({
    type: 'string',
    nullable: true,
    example: null,
    description: 'Always null: nothing is counted.',
  })
  last!: null;
  @ApiProperty({ type: 'string', nullable: true, example: null })
  prev!: string | null;
  @ApiProperty({ type: 'string', nullable: true, example: 'https://api.example.com/api/v2/order?page=2' })
  next!: string | null;
}

/** A 1-based position in a list (PostgreSQL integer range). */
const POSITION = { type: 'integer', format: 'int32', minimum: 1, maximum: 2_147_483_647 } as const;

class PageMeta {
  @ApiProperty({ ...POSITION, example: 1 })
  current_page!: number;
  @ApiProperty({ ...POSITION, nullable: true, example: 1 })
  from!: number | null;
  @ApiProperty({ example: 'https://api.example.com/api/v2/order' })
  path!: string;
  @ApiProperty({ ...POSITION, maximum: MAX_PER_PAGE, example: 25 })
  per_page!: number;
  @ApiProperty({ ...POSITION, nullable: true, example: 25 })
  to!: number | null;
}

const pageSchemas = new Map<Type, Type>();

/**
 * The named envelope of a page of `model` (`OrderListItemResponse` → `OrderListItemPage`), made once per
 * model, so a generated client has one type per list.
 */
function pageOf(model: Type): Type {
  let page = pageSchemas.get(model);
  if (!page) {
    class Page {
      @ApiProperty({ type: [model] })
      data!: unknown[];
      @ApiProperty({ type: PageLinks })
      links!: PageLinks;
      @ApiProperty({ type: PageMeta })
      meta!: PageMeta;
    }
    page = Page;
    Object.defineProperty(page, 'name', { value: `${model.name.replace(/Response$/, '')}Page` });
    pageSchemas.set(model, page);
  }
  return page;
}

/** A 200 with Laravel's simple pagination envelope around `model`, and the rate-limit headers. */
export function ApiPageResponse(model: Type): MethodDecorator {
  return ApiOkResponse({
    description: 'One page, in the simple-pagination envelope.',
    headers: RATE_HEADERS,
    type: pageOf(model),
  });
}

/** The response header of everything that returns an order: its version, to send back as If-Match. */
export const ETAG_HEADER = {
  ETag: {
    description: 'The order version as a strong ETag, e.g. `"3"`: send it back as If-Match.',
    schema: { type: 'string', pattern: '^"[0-9]+"$', example: '"3"' },
  },
} as const;
