import { ApiProperty, IntersectionType } from '@nestjs/swagger';
import { IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import { IdFilter } from '../../kernel/db-integer.validator';
import { IsApiDateTime } from '../../kernel/api-datetime.validator';
import { PageQuery } from '../../kernel/pagination';

const STATUS_FILTER = /^([1-5]xx|[1-5]\d\d)$/;
const STATUS_MESSAGE = 'The status must be 4xx, 5xx (any class from 1xx to 5xx) or an HTTP status code.';
/** A route template or a path, as the log keeps them: from the first slash, without whitespace. */
const ROUTE_FILTER = /^\/\S*$/;
const ROUTE_MESSAGE = 'The route must be a route template or a path, starting with /.';

/** The window GET /requests/errors groups: `from` and `to`, inclusive. */
export class RequestWindowQuery {
  /** Requests made at or after (YYYY-MM-DD or YYYY-MM-DDTHH:MM[:SS], service time zone). @example "2026-11-28" */
  @IsApiDateTime()
  @IsOptional()
  from?: string;

  /** Requests made up to and including. @example "2026-11-28T23:59:59" */
  @IsApiDateTime()
  @IsOptional()
  to?: string;
}

/** The filters of the request log (CONTRACT §4.12), all combinable, all ANDed, and its pages. */
export class ListRequestsQuery extends IntersectionType(PageQuery, RequestWindowQuery) {
  /** Only requests answered with this status (`404`) or class of statuses (`4xx`, `5xx`). */
  @ApiProperty({ required: false, maxLength: 3, pattern: STATUS_FILTER.source, example: '4xx' })
  @IsOptional()
  @IsString({ message: STATUS_MESSAGE })
  @Matches(STATUS_FILTER, { message: STATUS_MESSAGE })
  status?: string;

  /** Only requests to this route template (`/api/v2/order/:id`) or exactly this path (`/api/v2/order/123`). */
  @ApiProperty({
    required: false,
    maxLength: 2048,
    pattern: ROUTE_FILTER.source,
    example: '/api/v2/order/:id',
  })
  @IsOptional()
  @IsString({ message: ROUTE_MESSAGE })
  @Matches(ROUTE_FILTER, { message: ROUTE_MESSAGE })
  @MaxLength(2048, { message: 'The route must be at most 2048 characters.' })
  route?: string;

  /** Only requests made with this token. */
  @IdFilter()
  token_id?: number;
}

/** The admin's list: every company's requests, or one company's. */
export class ListAdminRequestsQuery extends ListRequestsQuery {
  /** Only this company's requests. */
  @IdFilter()
  company_id?: number;
}

/** The admin's error groups: every company's, or one company's. */
export class AdminRequestWindowQuery extends RequestWindowQuery {
  /** Only this company's requests. */
  @IdFilter()
  company_id?: number;
}

/** `4xx` as the statuses 400–499, `404` as itself. */
export function statusRange(status: string | undefined): { from: number; to: number } | undefined {
  if (status === undefined) return undefined;
  const code = Number(status.replace(/xx$/, '00'));
  return status.endsWith('xx') ? { from: code, to: code + 99 } : { from: code, to: code };
}

/** The request id of the detail routes. */
export const REQUEST_ID_PARAM = {
  name: 'request_id',
  description: "The request's X-Request-Id (another company's request is 404, like a missing one).",
  schema: {
    type: 'string',
    maxLength: 128,
    pattern: '^[^\\x00-\\x1f\\x7f]+$',
    example: '4f1c2f0e-5b0a-4c4e-9d8e-1f0a2b3c4d5e',
  },
} as const;
