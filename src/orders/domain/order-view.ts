import { ORDER_STATES, ORDER_TYPES } from '../order-state';
import {
  choice,
  dateTimeText,
  flag,
  integer,
  listOf,
  nullable,
  nullableObject,
  type ResponseField,
  text,
} from './order-view.schema';

/**
 * The order object of CONTRACT §4, declared once: each field in the position spec §2.3 gives it, with its
 * response schema, whether it is a column of the CSV export and whether a partner sends it. The statement that
 * builds the order's JSON (persistence/order-view.ts reads a field from the column of its name, unless it is
 * `derived`), the response schema and its TypeScript type (dto/order.response.ts), the placement fields
 * (order-fields.ts), the CSV columns and the field lists of the tests are derived from this table. Pure: the
 * tests import it.
 */
export type OrderViewField =
  | {
      key: string;
      /** How the response schema describes it (order-view.schema.ts). */
      schema: ResponseField<unknown>;
      /** A column of the CSV export (CONTRACT §4.10), in this position. */
      csv?: true;
      /**
       * A placement field: a partner sends it under this name (PlaceOrderDto declares and validates it), and it is
       * stored in the order's column of the same name.
       */
      input?: true;
      /** Not the column of its name as stored: persistence/order-view.ts says how it is read. */
      derived?: true;
    }
  /** A CSV column the export computes, not a field of the order object. */
  | { key: string; csv: true };

/** The order's own fields, in spec §2.3's order, then the contract's extra fields. */
export const ORDER_VIEW = [
  { key: 'order_id', schema: integer({ example: 123 }), csv: true, derived: true },
  {
    key: 'order_ref',
    schema: text({
      description: 'The site, a dash and the order id padded to 7 digits.',
      example: 'SK-0000123',
    }),
    csv: true,
    derived: true,
  },
  { key: 'created_at', schema: dateTimeText({ example: '2026-11-22T07:30' }), csv: true },
  { key: 'first_name', schema: text({ example: 'Jana' }), csv: true, input: true },
  { key: 'last_name', schema: text({ example: 'Nováková' }), csv: true, input: true },
  { key: 'consignee', schema: text({ example: 'Bistro Group s.r.o.' }), csv: true, input: true },
  { key: 'email', schema: text({ example: 'jana.novakova@example.com' }), csv: true, input: true },
  { key: 'phone', schema: text({ example: '+421900123456' }), csv: true, input: true },
  { key: 'zip', schema: text({ example: '81101' }), csv: true, input: true },
  { key: 'city', schema: text({ example: 'Bratislava' }), csv: true, input: true },
  { key: 'street', schema: text({ example: 'Obchodná' }), csv: true, input: true },
  { key: 'house_number', schema: text({ example: '12' }), csv: true, input: true },
  { key: 'floor', schema: nullable(text({ example: '2' })), csv: true, input: true },
  { key: 'door', schema: nullable(text({ example: 'B' })), csv: true, input: true },
  {
    key: 'opening_hours',
    schema: nullable(text({ example: 'Mo-Fr 10:00-22:00' })),
    csv: true,
    input: true,
  },
  { key: 'product_id', schema: integer({ example: 2 }), csv: true, input: true },
  {
    key: 'product_variation_id',
    schema: nullable(integer({ example: 4 })),
    csv: true,
    input: true,
  },
  {
    key: 'login',
    schema: text({ description: 'Device login, as submitted.', example: 'bistro-12' }),
    csv: true,
    input: true,
    derived: true,
  },
  {
    key: 'password',
    schema: text({ description: 'Device password, as submitted.', example: 'device-secret' }),
    csv: true,
    input: true,
    derived: true,
  },
  {
    key: 'final_completion_date',
    schema: nullable(
      dateTimeText({
        description: 'Set by logistics when the order is complete; null until then.',
        example: '2026-11-23T12:00',
      }),
    ),
    csv: true,
  },
  { key: 'order_type', schema: choice(ORDER_TYPES, 'REGULAR'), csv: true, input: true },
  { key: 'original_order_id', schema: nullable(text()), csv: true, input: true, derived: true },
  { key: 'trackings', schema: listOf('TrackingResponse'), derived: true },
  {
    key: 'detailed_status',
    schema: nullableObject(
      'DetailedStatusResponse',
      'The latest detailed status reported (by status_date), or null.',
    ),
    derived: true,
  },
  {
    key: 'serial_number',
    schema: nullable(text({ description: 'Set by logistics; null until then.' })),
    csv: true,
  },
  { key: 'delivery_errors', schema: listOf('DeliveryErrorResponse'), derived: true },
  { key: 'merchant_id', schema: text({ example: 'M-4411' }), csv: true, input: true },
  { key: 'state', schema: choice(ORDER_STATES, 'PLACED', 'decorated'), csv: true },
  {
    key: 'editable',
    schema: flag({
      description: 'True while POST /order/{id}/update would accept an update (state PLACED or TEST).',
      example: true,
    }),
    derived: true,
  },
  { key: 'test', schema: flag({ example: false }), csv: true, input: true },
  { key: 'country', schema: nullable(text({ example: 'sk' })), input: true },
  { key: 'note', schema: nullable(text({ example: 'Ring twice' })), input: true },
  { key: 'details', schema: nullable(text({ example: 'Back entrance' })), input: true },
  { key: 'corrected_order_ID', schema: nullable(text()), input: true },
  { key: 'oms_user_id', schema: nullable(integer({ example: 17 })), input: true },
  { key: 'retail', schema: nullable(flag({ example: false })), input: true },
  { key: 'dinein', schema: nullable(flag({ example: false })), input: true },
  { key: 'shop_number', schema: nullable(text({ example: 'S-22' })), input: true },
  // The export's own columns: the tracking numbers (space-separated) and the latest delivery date.
  { key: 'tracking_numbers', csv: true },
  { key: 'delivered_at', csv: true },
  {
    key: 'updated_at',
    schema: dateTimeText({
      description: 'Moves with every change to the order or its trackings, statuses, errors and comments.',
      example: '2026-11-22T07:45',
    }),
    csv: true,
  },
  // Last, so the CSV's columns of before keep their positions.
  {
    key: 'version',
    schema: integer({
      description:
        'Moves with every change to the order (as updated_at does): the ETag of GET /order/{id}. Send it as ' +
        'If-Match: "<version>" on update, cancel or simulate to change the order only if it is still as read.',
      example: 3,
    }),
    csv: true,
  },
] as const satisfies readonly OrderViewField[];

export type OrderViewEntry = (typeof ORDER_VIEW)[number];

/** A field of the order object (a key of its JSON), as opposed to a column only the export computes. */
export type OrderObjectEntry = Extract<OrderViewEntry, { schema: unknown }>;

export const isObjectField = (field: OrderViewEntry): field is OrderObjectEntry => 'schema' in field;

/** The keys of the order's JSON object, in order (without the contributed arrays such as the comments). */
export const ORDER_FIELDS: string[] = ORDER_VIEW.filter(isObjectField).map((field) => field.key);

export type OrderCsvColumn = Extract<OrderViewEntry, { csv: true }>['key'];

/** The columns of the CSV export, in order. */
export const ORDER_CSV_COLUMNS: OrderCsvColumn[] = ORDER_VIEW.filter(
  (field): field is Extract<OrderViewEntry, { csv: true }> => 'csv' in field,
).map((field) => field.key);

/** A field a partner sends (spec §2.1, CONTRACT §3): the view's input fields. */
export type PlacementField = Extract<OrderViewEntry, { input: true }>['key'];

/** The view's input fields, in the view's order. */
export const INPUT_FIELDS: PlacementField[] = ORDER_VIEW.flatMap((field) =>
  'input' in field ? [field.key] : [],
);
