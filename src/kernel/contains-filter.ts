import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, Matches } from 'class-validator';
import { type IndexOptions, Raw } from 'typeorm';
import { fieldLabel } from './field-label';
import { MaxCharacters, StorableText } from './required-text.validator';

/**
 * A list's "contains" text filter in a query string: a string of 1 to `max` characters that is not only spaces
 * (given twice or array-style, it is refused by name like every other parameter).
 */
export function ContainsFilter(description: string, example: string, max = 255): PropertyDecorator {
  return (target, property) => {
    const label = `The ${fieldLabel(String(property))} filter`;
    applyDecorators(
      ApiPropertyOptional({ description, example, minLength: 1, maxLength: max, pattern: '\\S' }),
      IsOptional(),
      IsString({ message: `${label} must be a string.` }),
      StorableText(),
      Matches(/\S/, { message: `${label} must not be empty.` }),
      MaxCharacters(max, `${label} may not be greater than ${max} characters.`),
    )(target, property);
  };
}

/** `text` as a LIKE pattern that matches it literally anywhere in a value (`%`, `_` and `\` escaped). */
export const containsPattern = (text: string): string => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/**
 * A TypeORM condition: the column contains `text`, whatever its case; `text` is the SQL parameter `parameter`
 * (never spliced into SQL), named per column so that two of them can share a statement.
 */
export const containsIgnoringCase = (text: string, parameter: string) =>
  Raw((column) => `${column} ILIKE :${parameter}`, { [parameter]: containsPattern(text) });

/**
 * The index a column with a contains filter has (name it `<table>_<column>_trgm_idx`): a pg_trgm GIN index,
 * which serves `ILIKE '%…%'` for a text of 3 characters or more. Its operator class, `gin_trgm_ops`, is in its
 * migration only (TypeORM's `@Index` has no option for one); the migration check compares the name, the type
 * and the column.
 */
export const CONTAINS_FILTER_INDEX: IndexOptions = { type: 'gin' };
