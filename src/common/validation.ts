import { ValidationPipe, type ValidationError } from '@nestjs/common';
import { type FieldErrors, ValidationFailedError } from './domain-error';

/** Flattens class-validator's tree into CONTRACT §2's map: `field` or `parent.0.child` → messages. */
export function toFieldErrors(errors: ValidationError[], prefix = ''): FieldErrors {
  const result: FieldErrors = {};
  for (const error of errors) {
    const field = prefix ? `${prefix}.${error.property}` : error.property;
    const messages = [...new Set(Object.values(error.constraints ?? {}))];
    if (messages.length > 0) result[field] = messages;
    Object.assign(result, toFieldErrors(error.children ?? [], field));
  }
  return result;
}

/**
 * class-validator runs a property's decorators bottom-up: DTOs put the presence and type checks nearest the
 * property, so with stopAtFirstError a field reports the one message that applies ("required", then "must
 * be a string", then the length).
 *
 * whitelist drops unknown fields (ignored by contract, never an error); transform gives handlers typed DTOs;
 * implicit conversion stays off so a known field of the wrong type is a 400.
 */
export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: false,
    transform: true,
    transformOptions: { enableImplicitConversion: false },
    stopAtFirstError: true,
    validationError: { target: false, value: false },
    exceptionFactory: (errors) => new ValidationFailedError(toFieldErrors(errors)),
  });
}
