import { PLACEMENT_FIELDS, type PlacementField } from '../http/dto/place-order.dto';
import type { Order } from '../order.entity';

/**
 * The Order property that stores a placement field: the API name is the column's name (lower-cased: the
 * contract spells one `corrected_order_ID`), the property its camelCase, as every column of the entity is named.
 * The compiler checks that each field's property is one of Order's.
 */
type Property<Field extends string> = CamelCase<Lowercase<Field>>;
type CamelCase<Name extends string> = Name extends `${infer Head}_${infer Tail}`
  ? `${Head}${Capitalize<CamelCase<Tail>>}`
  : Name;

const property = <Field extends PlacementField>(field: Field): Property<Field> =>
  field.toLowerCase().replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase()) as Property<Field>;

export type OrderFieldValues = Record<PlacementField, unknown>;
export type StoredFields = Pick<Order, Property<PlacementField>>;

const entries = PLACEMENT_FIELDS.map((field): [PlacementField, keyof StoredFields] => [
  field,
  property(field),
]);

/** The Order properties that store the placement fields, in the order of the fields. */
export const STORED_PROPERTIES: (keyof StoredFields)[] = entries.map(([, property]) => property);

/** Validated placement values as they are stored: absent optionals become null, country lower case. */
export function toStoredFields(values: Partial<OrderFieldValues>): StoredFields {
  const stored = Object.fromEntries(
    entries.map(([field, property]) => [property, values[field] ?? null]),
  ) as StoredFields;
  stored.country = stored.country?.toLowerCase() ?? null;
  stored.test = stored.test ?? false;
  return stored;
}

/** An order's placement fields as a partner would send them: the base an update is merged onto. */
export function toFieldValues(order: Order): OrderFieldValues {
  return Object.fromEntries(entries.map(([field, property]) => [field, order[property]])) as OrderFieldValues;
}

/** The fields whose stored value differs between two versions of an order (names only, for the audit trail). */
export function changedFields(before: StoredFields, after: StoredFields): PlacementField[] {
  return entries.filter(([, property]) => before[property] !== after[property]).map(([field]) => field);
}
