import type { PipeTransform } from '@nestjs/common';

const MAX_ID = 2_147_483_647;

/**
 * A path id: digits that fit a PostgreSQL integer. Anything else names nothing, so it gets the same
 * not-found error as a missing row (never a 400, and never an out-of-range error from the database).
 */
export function idParam(notFound: () => Error): PipeTransform<string, number> {
  return {
    transform(value: string): number {
      const id = /^\d{1,10}$/.test(value) ? Number(value) : 0;
      if (id < 1 || id > MAX_ID) throw notFound();
      return id;
    },
  };
}
