import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsInt, IsOptional, Max, Min, type ValidationArguments } from 'class-validator';
import { fieldLabel } from './field-label';
import { toInteger } from './transforms';

/** The largest value a PostgreSQL `integer` column holds: ids and counts beyond it name nothing. */
export const MAX_DB_INTEGER = 2_147_483_647;

type Message = string | ((args: ValidationArguments) => string);

/**
 * An integer that fits its PostgreSQL column (from `min` to 2,147,483,647), checked before any query so an
 * out-of-range value is a 400 naming the field, never a database error. Decorators run in list order.
 */
export function DbInteger(outOfRange: Message, min = 1): PropertyDecorator {
  return applyDecorators(
    IsInt({ message: ({ property }) => `The ${fieldLabel(property)} must be an integer.` }),
    Min(min, { message: outOfRange }),
    Max(MAX_DB_INTEGER, { message: outOfRange }),
  );
}

/** The longest integer a query parameter is read as: 15 digits (toInteger), either sign. */
const MAX_QUERY_INTEGER = 999_999_999_999_999;

/**
 * An id as a list's filter (`company_id=`, `token_id=`): any integer, and one that names no row gives an empty
 * page, whatever the reason (no such row, or no row could have it: 0, negative, beyond the integer column, read
 * as 0, which no id is). Anything but an integer is a 400 naming the field.
 */
export function IdFilter(): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional({
      type: 'integer',
      format: 'int64',
      minimum: -MAX_QUERY_INTEGER,
      maximum: MAX_QUERY_INTEGER,
    }),
    IsOptional(),
    Transform((args) => {
      const id = toInteger(args);
      return typeof id === 'number' && (id < 1 || id > MAX_DB_INTEGER) ? 0 : id;
    }),
    IsInt({ message: ({ property }) => `The ${fieldLabel(property)} must be an integer.` }),
  );
}
