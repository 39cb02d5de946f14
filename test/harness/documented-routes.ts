import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface Schema {
  $ref?: string;
  type?: string;
  properties?: Record<string, Schema>;
  items?: Schema;
  allOf?: Schema[];
  example?: unknown;
}

export interface OpenApiDocument {
  paths: Record<
    string,
    Record<string, { operationId?: string; requestBody?: { content: Record<string, { schema: Schema }> } }>
  >;
  components: { schemas: Record<string, Schema> };
}

/**
 * The SDK's copy of the served document (clients/typescript/openapi.json: `npm run client:generate` writes it,
 * `client:check` fails while it differs), read synchronously so that a spec can name its cases from it; a spec
 * that does compares it with the document its service serves.
 */
export const DOCUMENT_COPY = JSON.parse(
  readFileSync(join(__dirname, '..', '..', 'clients', 'typescript', 'openapi.json'), 'utf8'),
) as OpenApiDocument;

export type BodyMethod = 'post' | 'put' | 'patch';

/** An operation that takes a JSON body: its method, its path template and its body's schema. */
export interface BodyOperation {
  method: BodyMethod;
  template: string;
  schema: Schema;
}

/** The operations of `document` that take a JSON body, by operationId, in the document's order. */
export function bodyOperations(document: OpenApiDocument): Map<string, BodyOperation> {
  return new Map(
    Object.entries(document.paths).flatMap(([template, item]) =>
      Object.entries(item).flatMap(([method, operation]) => {
        const schema = operation.requestBody?.content['application/json']?.schema;
        return schema && operation.operationId
          ? [[operation.operationId, { method: method as BodyMethod, template, schema }] as const]
          : [];
      }),
    ),
  );
}

/** A value of `schema` made of the examples the document gives its properties (references followed). */
export function exampleOf(document: OpenApiDocument, schema: Schema): unknown {
  if (schema.example !== undefined) return schema.example;
  if (schema.$ref) return exampleOf(document, document.components.schemas[schema.$ref.split('/').pop()!]);
  if (schema.allOf?.length === 1) return exampleOf(document, schema.allOf[0]);
  if (schema.items) return [exampleOf(document, schema.items)];
  if (!schema.properties) return undefined;
  return Object.fromEntries(
    Object.entries(schema.properties).map(([name, property]) => [name, exampleOf(document, property)]),
  );
}
