import type { PipeTransform } from '@nestjs/common';
import { MAX_DB_INTEGER } from '../../kernel/db-integer.validator';

/**
 * A path id: digits that fit a PostgreSQL integer. Anything else names nothing, so it gets the same
 * not-found error as a missing row (never a 400, and never an out-of-range error from the database).
 */
export function idParam(notFound: () => Error): PipeTransform<string, number> {
  return {
    transform(value: string): number {
      const id = /^\d{1,10}$/.test(value) ? Number(value) : 0;
      if (id < 1 || id > MAX_DB_INTEGER) throw notFound();
      return id;
    },
  };
}

/** A path id of a bigint row (events, deliveries): 1 to 18 digits, kept as the string PostgreSQL returns. */
export function bigIdParam(notFound: () => Error): PipeTransform<string, string> {
  return {
    transform(value: string): string {
      if (!/^[1-9]\d{0,17}$/.test(value)) throw notFound();
      return value;
    },
  };
}
