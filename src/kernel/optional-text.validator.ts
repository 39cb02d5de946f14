import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString } from 'class-validator';
import { fieldLabel } from './field-label';
import { MaxCharacters, StorableText } from './required-text.validator';

/** An optional text field: absent or null, or a string of at most `max` characters. */
export function OptionalText(max = 255): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional({ maxLength: max }),
    IsOptional(),
    IsString({ message: ({ property }) => `The ${fieldLabel(property)} must be a string.` }),
    StorableText(),
    MaxCharacters(max),
  );
}
