import type { Type } from '@nestjs/common';
import { ApiExtraModels, ApiProperty, getSchemaPath } from '@nestjs/swagger';
import { ApiDateTime } from '../../kernel/openapi.formats';
import type {
  ChildSchemas,
  FieldSchema,
  ResponseField,
  ResponseObject,
} from '../domain/order-view.schema';
import { DeliveryErrorResponse, DetailedStatusResponse, TrackingResponse } from './order-children.response';

const CHILDREN: Record<keyof ChildSchemas, Type> = {
  TrackingResponse,
  DetailedStatusResponse,
  DeliveryErrorResponse,
};

/*
 * A field's schema as @nestjs/swagger reads a response class: the metadata its compiler plugin writes for a
 * property (type, nullability, doc comment), and a decorator for what the plugin cannot infer. The plugin
 * names a type by a function called `type`, which is how @nestjs/swagger tells it from a class: each thunk
 * below is the `type` property of an object literal, so it takes that name.
 */
function pluginMetadata(field: FieldSchema): Record<string, unknown> {
  const { nullable, description, example } = field;
  const doc = {
    ...(nullable && { nullable }),
    ...(description && { description }),
    ...(example !== undefined && { example }),
  };
  switch (field.type) {
    case 'string':
    case 'date-time':
      return { required: true, type: () => String, ...doc };
    case 'integer':
      return { required: true, type: () => Number, ...doc };
    case 'boolean':
      return { required: true, type: () => Boolean, ...doc };
    case 'enum':
      return field.decorated
        ? { required: true, enum: field.values }
        : { required: true, example, enum: field.values };
    case 'array':
      return { required: true, type: () => [CHILDREN[field.items]] };
    case 'object':
      return { required: true, type: () => CHILDREN[field.schema], ...(nullable && { nullable }) };
  }
}

function decorator(field: FieldSchema): PropertyDecorator | undefined {
  if (field.type === 'date-time') return ApiDateTime();
  if (field.type === 'enum' && field.decorated)
    return ApiProperty({ enum: field.values, example: field.example });
  // OpenAPI 3.0 cannot put `nullable` beside a `$ref`: the object is named through `allOf`, and the document's
  // finishing pass (platform/openapi) makes it a nullable copy of it.
  if (field.type === 'object')
    return ApiProperty({
      description: field.description,
      nullable: field.nullable,
      allOf: [{ $ref: getSchemaPath(CHILDREN[field.schema]) }],
    });
  return undefined;
}

/**
 * The schema class of `fields` for the document: the decorated fields first, then the plugin's metadata of
 * the others, which is the property order the published document has.
 */
export function responseClass<Fields extends { key: string; schema?: ResponseField<unknown> }>(
  name: string,
  fields: readonly Fields[],
): Type<ResponseObject<Fields>> {
  const described = fields.flatMap(({ key, schema }) => (schema ? [{ key, schema }] : []));
  const generated = {
    [name]: class {
      static _OPENAPI_METADATA_FACTORY(): Record<string, unknown> {
        return Object.fromEntries(described.map(({ key, schema }) => [key, pluginMetadata(schema)]));
      }
    },
  }[name];
  for (const { key, schema } of described) decorator(schema)?.(generated.prototype, key);
  ApiExtraModels(
    ...described.flatMap(({ schema }) => (schema.type === 'object' ? [CHILDREN[schema.schema]] : [])),
  )(generated);
  return generated as unknown as Type<ResponseObject<Fields>>;
}
