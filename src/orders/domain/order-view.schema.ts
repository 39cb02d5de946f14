import type {
  DeliveryErrorResponse,
  DetailedStatusResponse,
  TrackingResponse,
} from '../dto/order-children.response';

/**
 * How the OpenAPI document describes a field of the order view, and the TypeScript type of its value: the
 * response schema and the services' types derive from the view (dto/order.response.ts), not from a second
 * list. Plain data (the tests import the view); dto/view-schema.ts turns it into what @nestjs/swagger reads.
 */
export type ResponseField<Value> = FieldSchema & {
  /** Never set: the type of the value in the order object. */
  readonly value?: Value;
};

/** The child objects of the order, by their schema's name. */
export interface ChildSchemas {
  TrackingResponse: TrackingResponse;
  DetailedStatusResponse: DetailedStatusResponse;
  DeliveryErrorResponse: DeliveryErrorResponse;
}

export type FieldSchema = Doc & { nullable?: true } & (
    | { type: 'string' | 'integer' | 'boolean' }
    /** A datetime the API writes: YYYY-MM-DDTHH:MM. */
    | { type: 'date-time' }
    /**
     * One of `values`; `decorated` describes it by a decorator, as the published document has the state
     * (listed among the first properties).
     */
    | { type: 'enum'; values: readonly string[]; decorated?: true }
    | { type: 'array'; items: keyof ChildSchemas }
    | { type: 'object'; schema: keyof ChildSchemas }
  );

interface Doc {
  description?: string;
  example?: unknown;
}

export const text = (doc: Doc = {}): ResponseField<string> => ({ type: 'string', ...doc });
export const integer = (doc: Doc = {}): ResponseField<number> => ({ type: 'integer', ...doc });
export const flag = (doc: Doc = {}): ResponseField<boolean> => ({ type: 'boolean', ...doc });
export const dateTimeText = (doc: Doc = {}): ResponseField<string> => ({ type: 'date-time', ...doc });

export const choice = <V extends string>(
  values: readonly V[],
  example: V,
  decorated?: 'decorated',
): ResponseField<V> => ({ type: 'enum', values, example, ...(decorated && { decorated: true }) });

export const listOf = <Name extends keyof ChildSchemas>(
  items: Name,
): ResponseField<ChildSchemas[Name][]> => ({
  type: 'array',
  items,
});

/** The same field, null allowed. */
export const nullable = <Value>(field: ResponseField<Value>): ResponseField<Value | null> => ({
  ...field,
  nullable: true,
});

export const nullableObject = <Name extends keyof ChildSchemas>(
  schema: Name,
  description: string,
): ResponseField<ChildSchemas[Name] | null> => ({ type: 'object', schema, nullable: true, description });

/** The value type of each field that has a schema, keyed by its name. */
export type ResponseObject<Fields extends { key: string }> = {
  [F in Fields as F extends { schema: ResponseField<unknown> } ? F['key'] : never]: F extends {
    schema: ResponseField<infer Value>;
  }
    ? Value
    : never;
};
