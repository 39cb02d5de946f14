import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsInt, IsOptional, Max, Min } from 'class-validator';
import type { Request } from 'express';
import { toInteger } from './transforms';

export const MAX_PER_PAGE = 25;

/** `page` and `per_page` of every list (CONTRACT §4: page ≥ 1, per_page 1–25, default 25). */
export class PageQuery {
  @ApiPropertyOptional({
    minimum: 1,
    // As many digits as the server reads: a page past the end is an empty page, not an error.
    maximum: 999_999_999_999_999,
    format: 'int64',
    default: 1,
    description: 'Page number, from 1.',
  })
  @IsOptional()
  @Transform(toInteger)
  @Min(1, { message: 'The page must be at least 1.' })
  @IsInt({ message: 'The page must be an integer.' })
  page: number = 1;

  @ApiPropertyOptional({
    minimum: 1,
    maximum: MAX_PER_PAGE,
    default: MAX_PER_PAGE,
    description: 'Results per page.',
  })
  @IsOptional()
  @Transform(toInteger)
  @Min(1, { message: `The per page must be between 1 and ${MAX_PER_PAGE}.` })
  @Max(MAX_PER_PAGE, { message: `The per page must be between 1 and ${MAX_PER_PAGE}.` })
  @IsInt({ message: 'The per page must be an integer.' })
  per_page: number = MAX_PER_PAGE;
}

/** The rows to ask for: one more than a page, so we know whether a next page exists without counting. */
export function pageWindow(query: PageQuery): { offset: number; limit: number } {
  return { offset: (query.page - 1) * query.per_page, limit: query.per_page + 1 };
}

export interface PageLinks {
  first: string;
  last: null;
  prev: string | null;
  next: string | null;
}

export interface PageMeta {
  current_page: number;
  from: number | null;
  path: string;
  per_page: number;
  to: number | null;
}

export interface Page<T> {
  data: T[];
  links: PageLinks;
  meta: PageMeta;
}

/**
 * Laravel's simple pagination envelope. Links are absolute and keep every query parameter the client sent
 * (filters included), with only `page` changed; `last` is always null because nothing is counted.
 */
export function toPage<T>(rows: T[], query: PageQuery, request: Request, baseUrl: string): Page<T> {
  const hasNext = rows.length > query.per_page;
  const data = hasNext ? rows.slice(0, query.per_page) : rows;
  const path = baseUrl + request.path;
  const params = new URLSearchParams(request.originalUrl.split('?')[1] ?? '');
  const linkTo = (page: number) => {
    params.set('page', String(page));
    return `${path}?${params.toString()}`;
  };
  const from = data.length > 0 ? (query.page - 1) * query.per_page + 1 : null;
  return {
    data,
    links: {
      first: linkTo(1),
      last: null,
      prev: query.page > 1 ? linkTo(query.page - 1) : null,
      next: hasNext ? linkTo(query.page + 1) : null,
    },
    meta: {
      current_page: query.page,
      from,
      path,
      per_page: query.per_page,
      to: from === null ? null : from + data.length - 1,
    },
  };
}

/** A page whose items are JSON text already (built by PostgreSQL), as the JSON text of the whole envelope. */
export function pageJson(page: Page<string>): string {
  return `{"data":[${page.data.join(',')}],"links":${JSON.stringify(page.links)},"meta":${JSON.stringify(page.meta)}}`;
}
