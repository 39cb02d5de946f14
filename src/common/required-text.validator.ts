import { applyDecorators } from '@nestjs/common';
import { IsDefined, IsString, Matches, MaxLength } from 'class-validator';

/** Spells a DTO field name the way messages show it: user_name → "user name". */
export const fieldLabel = (property: string) => property.replace(/_/g, ' ');

/**
 * A required text field: present, a string, not blank (whitespace alone is as empty as nothing), at most
 * `max` characters. applyDecorators registers in list order, so this list is the order of checking, and with
 * stopAtFirstError only the first failing rule reports (see validation.ts).
 */
export function RequiredText(max = 255): PropertyDecorator {
  return applyDecorators(
    IsDefined({ message: ({ property }) => `The ${fieldLabel(property)} field is required.` }),
    IsString({ message: ({ property }) => `The ${fieldLabel(property)} must be a string.` }),
    Matches(/\S/, { message: ({ property }) => `The ${fieldLabel(property)} field is required.` }),
    MaxLength(max, {
      message: ({ property }) => `The ${fieldLabel(property)} may not be greater than ${max} characters.`,
    }),
  );
}
