import type { Order } from '../order.entity';
import { INPUT_FIELDS, type PlacementField } from './order-view';

export type { PlacementField };

/**
 * The order placement has always taken its first fields in: the placement statement's columns, the audit
 * trail's changed_fields and the update's message list them so. Kept, so that those stay as they are; it is
 * never extended: a field added since comes after these, in the view's order.
 */
const FIRST_FIELDS = [
  'first_name',
  'last_name',
  'consignee',
  'email',
  'phone',
  'zip',
  'city',
  'street',
  'house_number',
  'floor',
  'door',
  'opening_hours',
  'country',
  'product_id',
  'product_variation_id',
  'login',
  'password',
  'order_type',
  'original_order_id',
  'test',
  'note',
  'corrected_order_ID',
  'merchant_id',
  'oms_user_id',
  'retail',
  'dinein',
  'shop_number',
  'details',
] as const satisfies readonly PlacementField[];

/**
 * The fields a partner may send: placement takes them all, update any subset. They are the order view's input
 * fields (order-view.ts), so a field added there is a placement field without another list to keep in step;
 * PlaceOrderDto declares and validates the same set (test/registrations.spec.ts holds them together).
 */
export const PLACEMENT_FIELDS: readonly PlacementField[] = [...new Set([...FIRST_FIELDS, ...INPUT_FIELDS])];

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
