import { applyDecorators } from '@nestjs/common';
import { IsInt, Max, Min, type ValidationArguments } from 'class-validator';
import { fieldLabel } from './required-text.validator';

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
