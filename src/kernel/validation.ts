import { type ArgumentMetadata, ValidationPipe, type ValidationError } from '@nestjs/common';
import { type FieldErrors, ValidationFailedError } from './domain-error';
import { knownFieldsOf } from './known-fields';
import { foldArrayStyleParameters, repeatedParameters } from './query-parameters';

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

type QueryClass = new () => object;

/**
 * Before the pipe's own work: query parameters given array-style are named (foldArrayStyleParameters), and
 * only the DTO's own fields go on (knownFieldsOf), so nothing after this walks an unknown key. A parameter
 * given more than once is refused as such (repeatedParameters), beside whatever the others' rules say.
 *
 * A query with none of the DTO's parameters (`GET /product`, a first page) is the same input every time:
 * once it has passed, the DTO's defaults are handed over without transforming and validating it again.
 */
class ApiValidationPipe extends ValidationPipe {
  private readonly defaultsPass = new Set<QueryClass>();

  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (!metadata.metatype || !this.toValidate(metadata)) return super.transform(value, metadata);
    const isQuery = metadata.type === 'query' && typeof value === 'object' && value !== null;
    const given = isQuery ? foldArrayStyleParameters(value as Record<string, unknown>) : value;
    const fields = knownFieldsOf(metadata.metatype, given);
    const query = metadata.metatype as QueryClass;
    const noParameters = isQuery && Object.keys(fields as object).length === 0;
    if (noParameters && this.defaultsPass.has(query)) return new query();
    if (isQuery) await this.refuseRepeated(fields as Record<string, unknown>, metadata);
    const transformed: unknown = await super.transform(fields, metadata);
    if (noParameters) this.defaultsPass.add(query);
    return transformed;
  }

  /** Throws when a parameter is repeated: a 400 naming it, and every other bad parameter with its message. */
  private async refuseRepeated(fields: Record<string, unknown>, metadata: ArgumentMetadata): Promise<void> {
    const repeated = repeatedParameters(fields);
    if (Object.keys(repeated).length === 0) return;
    const others = Object.fromEntries(Object.entries(fields).filter(([name]) => !(name in repeated)));
    let othersErrors: FieldErrors = {};
    try {
      await super.transform(others, metadata);
    } catch (error) {
      if (!(error instanceof ValidationFailedError)) throw error;
      othersErrors = error.fieldErrors ?? {};
    }
    // A repeated parameter left out of `others` may be required there: its own message is the one that applies.
    throw new ValidationFailedError({ ...othersErrors, ...repeated });
  }
}

/**
 * class-validator runs a property's decorators bottom-up: DTOs put the presence and type checks nearest the
 * property, so with stopAtFirstError a field reports the one message that applies ("required", then "must
 * be a string", then the length).
 *
 * Unknown fields are dropped before anything walks them (ApiValidationPipe: linear, whatever the key count),
 * and whitelist stays on as the rule (ignored by contract, never an error); transform gives handlers typed
 * DTOs; implicit conversion stays off so a known field of the wrong type is a 400.
 */
export function createValidationPipe(): ValidationPipe {
  return new ApiValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: false,
    transform: true,
    transformOptions: { enableImplicitConversion: false },
    stopAtFirstError: true,
    validationError: { target: false, value: false },
    exceptionFactory: (errors) => new ValidationFailedError(toFieldErrors(errors)),
  });
}
