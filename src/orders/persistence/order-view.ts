import { oneOf } from '../../kernel/check-constraint';
import type { ApiFormats } from '../../platform/formats/api-formats';
import type {
  DeliveryErrorResponse,
  DetailedStatusResponse,
  TrackingResponse,
} from '../dto/order-children.response';
import type { DeliveryError, DetailedStatus, Tracking } from '../order-children.entities';
import { orderRefSql } from '../order-rules';
import { EDITABLE_STATES, ORDER_STATES, ORDER_TYPES } from '../order-state';
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
 * The order object of CONTRACT §4, declared once: each field with its SQL source, its response schema, in the
 * position spec §2.3 gives it, and whether it is a column of the CSV export. The statement that builds the
 * order's JSON (order-json.ts), the response schema and its TypeScript type (dto/order.response.ts), the CSV
 * columns and the field lists of the tests are derived from this table. Pure: the tests import it.
 */

/** An SQL expression of the order of row alias `o`; `at` writes a timestamptz column as the API does. */
export type FieldSql = (o: string, at: (column: string) => string) => string;

export type OrderViewField =
  | {
      key: string;
      /** Where the JSON object takes the value from. */
      sql: FieldSql;
      /** How the response schema describes it (order-view.schema.ts). */
      schema: ResponseField<unknown>;
      /** A column of the CSV export (CONTRACT §4.10), in this position. */
      csv?: true;
      /** Stored sealed in the column of its key: `sql` leaves it null, Node opens it (order-json.ts). */
      sealed?: true;
    }
  /** A CSV column the export computes, not a field of the order object: its SQL. */
  | { key: string; csv: FieldSql };

/** SQL expression: a timestamptz as the API writes datetimes, YYYY-MM-DDTHH:MM in the zone `zone` names. */
export const apiDateTimeSql = (column: string, zone: string): string =>
  `to_char(${column} AT TIME ZONE ${zone}, 'YYYY-MM-DD"T"HH24:MI')`;

/** The select list of a JSON object: each value named by its key. */
export const jsonFieldsSql = (pairs: [string, string][]): string =>
  pairs.map(([key, value]) => `${value} AS "${key}"`).join(', ');

/**
 * SQL expression: the rows of `from` (alias `alias`) that pass `where`, as a JSON array of objects in `order`,
 * written compact (objects `row_to_json`, elements joined with commas), as JSON.stringify writes it.
 */
export const jsonArraySql = (
  pairs: [string, string][],
  from: string,
  alias: string,
  where: string,
  order: string,
): string =>
  `(SELECT coalesce('[' || string_agg(row_to_json(j)::text, ',' ORDER BY ${order}) || ']', '[]')::json
      FROM ${from} ${alias} CROSS JOIN LATERAL (SELECT ${jsonFieldsSql(pairs)}) j WHERE ${where})`;

/** A field of a child object of the order: its key, the column and the entity property it comes from. */
interface ChildField<Row> {
  key: string;
  column: string;
  property: keyof Row & string;
  dateTime?: true;
}

/** A tracking, in its objects' key order: the order's `trackings` and the events' `tracking`. */
const TRACKING_FIELDS = [
  { key: 'status_date', column: 'status_date', property: 'statusDate', dateTime: true },
  { key: 'status', column: 'status', property: 'status' },
  { key: 'dispatch_date', column: 'dispatch_date', property: 'dispatchDate', dateTime: true },
  { key: 'delivery_date', column: 'delivery_date', property: 'deliveryDate', dateTime: true },
  { key: 'tracking_number', column: 'tracking_number', property: 'trackingNumber' },
  { key: 'tracking_link', column: 'tracking_link', property: 'trackingLink' },
] as const satisfies readonly ChildField<Tracking>[];

/** A detailed status: the order's latest `detailed_status` and the events' `detailed_status`. */
const DETAILED_STATUS_FIELDS = [
  { key: 'status_date', column: 'status_date', property: 'statusDate', dateTime: true },
  { key: 'status', column: 'status', property: 'status' },
  { key: 'location', column: 'location', property: 'location' },
  { key: 'description', column: 'description', property: 'description' },
  { key: 'tracking_number', column: 'tracking_number', property: 'trackingNumber' },
  { key: 'tracking_link', column: 'tracking_link', property: 'trackingLink' },
] as const satisfies readonly ChildField<DetailedStatus>[];

/** A delivery error: the order's `delivery_errors` and the events' `delivery_error`. */
const DELIVERY_ERROR_FIELDS = [
  { key: 'status', column: 'status', property: 'status' },
  { key: 'date', column: 'date', property: 'date', dateTime: true },
  { key: 'resolution', column: 'resolution', property: 'resolution' },
  { key: 'comment', column: 'comment', property: 'comment' },
] as const satisfies readonly ChildField<DeliveryError>[];

/** The select list of a child object in SQL, its rows under `alias`. */
const childPairs = <Row>(
  fields: readonly ChildField<Row>[],
  alias: string,
  at: (column: string) => string,
): [string, string][] =>
  fields.map(({ key, column, dateTime }) => [
    key,
    dateTime ? at(`${alias}.${column}`) : `${alias}.${column}`,
  ]);

/** The same object built in Node, for what is not read back from the database: the pieces of events. */
function childObject<Row, Property extends keyof Row & string, Body>(
  fields: readonly (ChildField<Row> & { property: Property })[],
  row: Pick<Row, Property>,
  formats: Pick<ApiFormats, 'dateTime'>,
): Body {
  return Object.fromEntries(
    fields.map(({ key, property, dateTime }) => [
      key,
      dateTime ? formats.dateTime(row[property] as Date | null) : row[property],
    ]),
  ) as Body;
}

export const trackingResponse = (
  row: Pick<Tracking, (typeof TRACKING_FIELDS)[number]['property']>,
  formats: Pick<ApiFormats, 'dateTime'>,
): TrackingResponse => childObject(TRACKING_FIELDS, row, formats);

export const detailedStatusResponse = (
  row: Pick<DetailedStatus, (typeof DETAILED_STATUS_FIELDS)[number]['property']>,
  formats: Pick<ApiFormats, 'dateTime'>,
): DetailedStatusResponse => childObject(DETAILED_STATUS_FIELDS, row, formats);

export const deliveryErrorResponse = (
  row: Pick<DeliveryError, (typeof DELIVERY_ERROR_FIELDS)[number]['property']>,
  formats: Pick<ApiFormats, 'dateTime'>,
): DeliveryErrorResponse => childObject(DELIVERY_ERROR_FIELDS, row, formats);

const column =
  (name: string): FieldSql =>
  (o) =>
    `${o}.${name}`;
const dateTime =
  (name: string): FieldSql =>
  (o, at) =>
    at(`${o}.${name}`);

/** The order's own fields, in spec §2.3's order, then the contract's extra fields. */
export const ORDER_VIEW = [
  { key: 'order_id', sql: column('id'), schema: integer({ example: 123 }), csv: true },
  {
    key: 'order_ref',
    sql: (o) => orderRefSql(o),
    schema: text({
      description: 'The site, a dash and the order id padded to 7 digits.',
      example: 'SK-0000123',
    }),
    csv: true,
  },
  {
    key: 'created_at',
    sql: dateTime('created_at'),
    schema: dateTimeText({ example: '2026-11-22T07:30' }),
    csv: true,
  },
  { key: 'first_name', sql: column('first_name'), schema: text({ example: 'Jana' }), csv: true },
  { key: 'last_name', sql: column('last_name'), schema: text({ example: 'Nováková' }), csv: true },
  { key: 'consignee', sql: column('consignee'), schema: text({ example: 'Bistro Group s.r.o.' }), csv: true },
  { key: 'email', sql: column('email'), schema: text({ example: 'jana.novakova@example.com' }), csv: true },
  { key: 'phone', sql: column('phone'), schema: text({ example: '+421900123456' }), csv: true },
  { key: 'zip', sql: column('zip'), schema: text({ example: '81101' }), csv: true },
  { key: 'city', sql: column('city'), schema: text({ example: 'Bratislava' }), csv: true },
  { key: 'street', sql: column('street'), schema: text({ example: 'Obchodná' }), csv: true },
  { key: 'house_number', sql: column('house_number'), schema: text({ example: '12' }), csv: true },
  { key: 'floor', sql: column('floor'), schema: nullable(text({ example: '2' })), csv: true },
  { key: 'door', sql: column('door'), schema: nullable(text({ example: 'B' })), csv: true },
  {
    key: 'opening_hours',
    sql: column('opening_hours'),
    schema: nullable(text({ example: 'Mo-Fr 10:00-22:00' })),
    csv: true,
  },
  { key: 'product_id', sql: column('product_id'), schema: integer({ example: 2 }), csv: true },
  {
    key: 'product_variation_id',
    sql: column('product_variation_id'),
    schema: nullable(integer({ example: 4 })),
    csv: true,
  },
  // Stored sealed: PostgreSQL leaves them null, Node opens them and puts them in place (order-json.ts).
  {
    key: 'login',
    sql: () => 'NULL::text',
    schema: text({ description: 'Device login, as submitted.', example: 'bistro-12' }),
    csv: true,
    sealed: true,
  },
  {
    key: 'password',
    sql: () => 'NULL::text',
    schema: text({ description: 'Device password, as submitted.', example: 'device-secret' }),
    csv: true,
    sealed: true,
  },
  {
    key: 'final_completion_date',
    sql: dateTime('final_completion_date'),
    schema: nullable(
      dateTimeText({
        description: 'Set by logistics when the order is complete; null until then.',
        example: '2026-11-23T12:00',
      }),
    ),
    csv: true,
  },
  { key: 'order_type', sql: column('order_type'), schema: choice(ORDER_TYPES, 'REGULAR'), csv: true },
  {
    key: 'original_order_id',
    sql: (o) => `${o}.original_order_id::text`,
    schema: nullable(text()),
    csv: true,
  },
  {
    key: 'trackings',
    sql: (o, at) =>
      jsonArraySql(childPairs(TRACKING_FIELDS, 't', at), 'trackings', 't', `t.order_id = ${o}.id`, 't.id'),
    schema: listOf('TrackingResponse'),
  },
  {
    key: 'detailed_status',
    sql: (o, at) =>
      `(SELECT row_to_json(j) FROM detailed_statuses s CROSS JOIN LATERAL (SELECT ${jsonFieldsSql(
        childPairs(DETAILED_STATUS_FIELDS, 's', at),
      )}) j WHERE s.order_id = ${o}.id ORDER BY s.status_date DESC, s.id DESC LIMIT 1)`,
    schema: nullableObject(
      'DetailedStatusResponse',
      'The latest detailed status reported (by status_date), or null.',
    ),
  },
  {
    key: 'serial_number',
    sql: column('serial_number'),
    schema: nullable(text({ description: 'Set by logistics; null until then.' })),
    csv: true,
  },
  {
    key: 'delivery_errors',
    sql: (o, at) =>
      jsonArraySql(
        childPairs(DELIVERY_ERROR_FIELDS, 'e', at),
        'delivery_errors',
        'e',
        `e.order_id = ${o}.id`,
        'e.id',
      ),
    schema: listOf('DeliveryErrorResponse'),
  },
  { key: 'merchant_id', sql: column('merchant_id'), schema: text({ example: 'M-4411' }), csv: true },
  { key: 'state', sql: column('state'), schema: choice(ORDER_STATES, 'PLACED', 'decorated'), csv: true },
  {
    key: 'editable',
    sql: (o) => oneOf(`${o}.state`, EDITABLE_STATES),
    schema: flag({
      description: 'True while POST /order/{id}/update would accept an update (state PLACED or TEST).',
      example: true,
    }),
  },
  { key: 'test', sql: column('test'), schema: flag({ example: false }), csv: true },
  { key: 'country', sql: column('country'), schema: nullable(text({ example: 'sk' })) },
  { key: 'note', sql: column('note'), schema: nullable(text({ example: 'Ring twice' })) },
  { key: 'details', sql: column('details'), schema: nullable(text({ example: 'Back entrance' })) },
  { key: 'corrected_order_ID', sql: column('corrected_order_id'), schema: nullable(text()) },
  { key: 'oms_user_id', sql: column('oms_user_id'), schema: nullable(integer({ example: 17 })) },
  { key: 'retail', sql: column('retail'), schema: nullable(flag({ example: false })) },
  { key: 'dinein', sql: column('dinein'), schema: nullable(flag({ example: false })) },
  { key: 'shop_number', sql: column('shop_number'), schema: nullable(text({ example: 'S-22' })) },
  // The export's own columns: the tracking numbers (space-separated, as `trackings` lists them) and the latest
  // delivery date.
  {
    key: 'tracking_numbers',
    csv: (o) =>
      `(SELECT string_agg(t.tracking_number, ' ' ORDER BY t.id) FROM trackings t WHERE t.order_id = ${o}.id)`,
  },
  {
    key: 'delivered_at',
    csv: (o, at) => `(SELECT ${at('max(t.delivery_date)')} FROM trackings t WHERE t.order_id = ${o}.id)`,
  },
  {
    key: 'updated_at',
    sql: dateTime('updated_at'),
    schema: dateTimeText({
      description: 'Moves with every change to the order or its trackings, statuses, errors and comments.',
      example: '2026-11-22T07:45',
    }),
    csv: true,
  },
  // Last, so the CSV's columns of before keep their positions.
  {
    key: 'version',
    sql: column('version'),
    schema: integer({
      description:
        "Moves with every change to the order (as updated_at does): the ETag of GET /order/{id}. Send it as " +
        'If-Match: "<version>" on update, cancel or simulate to change the order only if it is still as read.',
      example: 3,
    }),
    csv: true,
  },
] as const satisfies readonly OrderViewField[];

type ViewEntry = (typeof ORDER_VIEW)[number];

/** The keys of the order's JSON object, in order (without the contributed arrays such as the comments). */
export const ORDER_FIELDS: string[] = ORDER_VIEW.filter((field) => 'sql' in field).map((field) => field.key);

type CsvEntry = Extract<ViewEntry, { csv: true | FieldSql }>;

export type OrderCsvColumn = CsvEntry['key'];

const CSV_ENTRIES = ORDER_VIEW.filter((field): field is CsvEntry => 'csv' in field);

/** The columns of the CSV export, in order. */
export const ORDER_CSV_COLUMNS: OrderCsvColumn[] = CSV_ENTRIES.map((field) => field.key);

/**
 * The select list of the CSV export's row of order alias `o`: one value per column of the file, named by it,
 * in order, each as the order object has it (the sealed ones as stored). No JSON is built: the file's cells
 * are all scalars. `zone` as for orderJsonSql.
 */
export function orderCsvSelectSql(o: string, zone: string): string {
  const at = (value: string) => apiDateTimeSql(value, zone);
  return jsonFieldsSql(
    CSV_ENTRIES.map((field): [string, string] => [
      field.key,
      'sealed' in field
        ? `${o}.${field.key}`
        : typeof field.csv === 'function'
          ? field.csv(o, at)
          : field.sql(o, at),
    ]),
  );
}

/**
 * A field another module adds to the order object, after the order's own: the comments module's array. Its
 * key depends on the read (`comments` on one order, `partner_comments` on a list item), so the read names it.
 */
export type OrderViewContribution = FieldSql;

const contributions = new Map<string, OrderViewContribution>();

/**
 * Adds (or replaces) the field a module contributes under `slot`: registered when its module is built,
 * before any order is read. The statements are built from the view on first use, then kept.
 */
export function contributeToOrderView(slot: string, field: OrderViewContribution): void {
  contributions.set(slot, field);
  builtOrderJsonSql.clear();
}

/** The contributed fields of a read: each slot with the key it takes there. */
export type ContributedKeys = Record<string, string>;

/**
 * SQL expression: the order of row alias `o` as a json object (`json`, not `jsonb`, keeps the keys in the
 * view's order). `zone` is the placeholder of the service time zone (`$3`); datetimes come out as
 * YYYY-MM-DDTHH:MM in it. Built once per combination of its constant arguments.
 */
export function orderJsonSql(o: string, zone: string, keys: ContributedKeys): string {
  const cacheKey = `${o} ${zone} ${JSON.stringify(keys)}`;
  let sql = builtOrderJsonSql.get(cacheKey);
  if (sql === undefined) {
    sql = buildOrderJsonSql(o, zone, keys);
    builtOrderJsonSql.set(cacheKey, sql);
  }
  return sql;
}

const builtOrderJsonSql = new Map<string, string>();

function buildOrderJsonSql(o: string, zone: string, keys: ContributedKeys): string {
  const at = (value: string) => apiDateTimeSql(value, zone);
  const own = ORDER_VIEW.filter((field) => 'sql' in field).map((field): [string, string] => [
    field.key,
    field.sql(o, at),
  ]);
  const contributed = Object.entries(keys).map(([slot, key]): [string, string] => {
    const field = contributions.get(slot);
    if (!field) throw new Error(`Nothing is contributed to the order view as "${slot}"`);
    return [key, field(o, at)];
  });
  return `(SELECT row_to_json(j) FROM (SELECT ${jsonFieldsSql([...own, ...contributed])}) j)`;
}
