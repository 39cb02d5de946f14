import { applyDecorators } from '@nestjs/common';
import { registerDecorator, type ValidationOptions } from 'class-validator';
import { parseApiDateTime } from './datetime';
import { ApiDateTimeInput } from './openapi.formats';
import { fieldLabel } from './field-label';

/**
 * The value is one of the accepted datetime shapes and a real calendar moment. The calendar does not depend on
 * the zone, so UTC is used to check; services parse in the service zone.
 */
export function IsApiDateTime(options?: ValidationOptions): PropertyDecorator {
  const validator: PropertyDecorator = (target, propertyName) =>
    registerDecorator({
      name: 'isApiDateTime',
      target: target.constructor,
      propertyName: propertyName as string,
      options: {
        message: ({ property }) =>
          `The ${fieldLabel(property)} must be a date (YYYY-MM-DD) or datetime (YYYY-MM-DDTHH:MM[:SS]) that exists.`,
        ...options,
      },
      validator: {
        validate: (value: unknown) => typeof value === 'string' && parseApiDateTime(value, 'UTC') !== null,
      },
    });
  return applyDecorators(ApiDateTimeInput(), validator);
}
