import { applyDecorators } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';
import { IsDefined, IsString, Matches, ValidateBy } from 'class-validator';
import { characterCount } from './characters';
import { fieldLabel } from './field-label';

const UNPAIRED_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * Text PostgreSQL can store as given: no NUL character (it refuses it) and no unpaired surrogate (not Unicode;
 * it would come back as U+FFFD, and some validators throw on it).
 */
export const isStorableText = (value: string): boolean =>
  !value.includes('\u0000') && !UNPAIRED_SURROGATE.test(value);

/** Strings only: the type check before it reports anything else. */
export function StorableText(): PropertyDecorator {
  return ValidateBy(
    {
      name: 'storableText',
      validator: { validate: (value: unknown) => typeof value !== 'string' || isStorableText(value) },
    },
    {
      message: ({ property }) =>
        `The ${fieldLabel(property)} may not contain NUL characters or unpaired surrogates.`,
    },
  );
}

/**
 * At most `max` characters (code points); anything but a string passes, for the type check to report.
 * The message defaults to "The <field> may not be greater than <max> characters."
 */
export function MaxCharacters(max: number, message?: string): PropertyDecorator {
  return ValidateBy(
    {
      name: 'maxCharacters',
      constraints: [max],
      validator: { validate: (value: unknown) => typeof value !== 'string' || characterCount(value) <= max },
    },
    {
      message: ({ property }) =>
        message ?? `The ${fieldLabel(property)} may not be greater than ${max} characters.`,
    },
  );
}

/**
 * A required text field: present, a string, not blank (whitespace alone is as empty as nothing), at most
 * `max` characters. applyDecorators registers in list order, so this list is the order of checking, and with
 * stopAtFirstError only the first failing rule reports (see validation.ts).
 */
export function RequiredText(max = 255): PropertyDecorator {
  return applyDecorators(
    ApiProperty({ minLength: 1, maxLength: max, pattern: '\\S' }),
    IsDefined({ message: ({ property }) => `The ${fieldLabel(property)} field is required.` }),
    IsString({ message: ({ property }) => `The ${fieldLabel(property)} must be a string.` }),
    StorableText(),
    Matches(/\S/, { message: ({ property }) => `The ${fieldLabel(property)} field is required.` }),
    MaxCharacters(max),
  );
}
