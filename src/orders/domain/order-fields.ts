import type { PlacementField } from '../http/dto/place-order.dto';
import type { Order } from '../order.entity';

/** The API name of each placement field and the Order property that stores it: the one mapping both ways. */
const FIELD_PROPERTIES = {
  first_name: 'firstName',
  last_name: 'lastName',
  consignee: 'consignee',
  email: 'email',
  phone: 'phone',
  zip: 'zip',
  city: 'city',
  street: 'street',
  house_number: 'houseNumber',
  floor: 'floor',
  door: 'door',
  opening_hours: 'openingHours',
  country: 'country',
  product_id: 'productId',
  product_variation_id: 'productVariationId',
  login: 'login',
  password: 'password',
  order_type: 'orderType',
  original_order_id: 'originalOrderId',
  test: 'test',
  note: 'note',
  corrected_order_ID: 'correctedOrderId',
  merchant_id: 'merchantId',
  oms_user_id: 'omsUserId',
  retail: 'retail',
  dinein: 'dinein',
  shop_number: 'shopNumber',
  details: 'details',
} as const satisfies Record<PlacementField, keyof Order>;

export type OrderFieldValues = Record<PlacementField, unknown>;
export type StoredFields = Pick<Order, (typeof FIELD_PROPERTIES)[PlacementField]>;

const entries = Object.entries(FIELD_PROPERTIES) as [PlacementField, keyof StoredFields][];

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
