import { oneOf } from '../../kernel/check-constraint';
import type { ApiFormats } from '../../platform/formats/api-formats';
import type {
  DeliveryErrorResponse,
  DetailedStatusResponse,
  TrackingResponse,
} from '../dto/order-children.response';
import { isObjectField, type OrderCsvColumn, ORDER_VIEW, type OrderObjectEntry } from '../domain/order-view';
import type { DeliveryError, DetailedStatus, Tracking } from '../order-children.entities';
import { orderRefSql } from '../order-rules';
import { EDITABLE_STATES } from '../order-state';

/**
 * The SQL of the order view (domain/order-view.ts): the statement that builds the order's JSON, each field from
 * the column of its name or, for a derived field, from its own expression, and the child objects in SQL and in
 * Node (events carry them).
 */

/** An SQL expression of the order of row alias `o`; `at` writes a timestamptz column as the API does. */
export type FieldSql = (o: string, at: (column: string) => string) => string;

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

/** How each derived field of the view is read: the fields that are not the column of their name as stored. */
const DERIVED_SQL: Record<Extract<OrderObjectEntry, { derived: true }>['key'], FieldSql> = {
  order_id: column('id'),
  order_ref: (o) => orderRefSql(o),
  // Stored sealed: PostgreSQL leaves them null, Node opens them and puts them in place (order-json.ts).
  login: () => 'NULL::text',
  password: () => 'NULL::text',
  original_order_id: (o) => `${o}.original_order_id::text`,
  trackings: (o, at) =>
    jsonArraySql(childPairs(TRACKING_FIELDS, 't', at), 'trackings', 't', `t.order_id = ${o}.id`, 't.id'),
  detailed_status: (o, at) =>
    `(SELECT row_to_json(j) FROM detailed_statuses s CROSS JOIN LATERAL (SELECT ${jsonFieldsSql(
      childPairs(DETAILED_STATUS_FIELDS, 's', at),
    )}) j WHERE s.order_id = ${o}.id ORDER BY s.status_date DESC, s.id DESC LIMIT 1)`,
  delivery_errors: (o, at) =>
    jsonArraySql(
      childPairs(DELIVERY_ERROR_FIELDS, 'e', at),
      'delivery_errors',
      'e',
      `e.order_id = ${o}.id`,
      'e.id',
    ),
  editable: (o) => oneOf(`${o}.state`, EDITABLE_STATES),
};

/**
 * Where the order object takes a field from: its derived SQL, else the column of its name (lower case: the
 * contract spells one `corrected_order_ID`), a datetime written as the API writes them.
 */
function fieldSql(field: OrderObjectEntry): FieldSql {
  if ('derived' in field) return DERIVED_SQL[field.key];
  const name = field.key.toLowerCase();
  return field.schema.type === 'date-time' ? (o, at) => at(`${o}.${name}`) : column(name);
}

/** How the export computes its own columns, which are not fields of the order object. */
const CSV_ONLY_SQL: Record<Exclude<OrderCsvColumn, OrderObjectEntry['key']>, FieldSql> = {
  tracking_numbers: (o) =>
    `(SELECT string_agg(t.tracking_number, ' ' ORDER BY t.id) FROM trackings t WHERE t.order_id = ${o}.id)`,
  delivered_at: (o, at) =>
    `(SELECT ${at('max(t.delivery_date)')} FROM trackings t WHERE t.order_id = ${o}.id)`,
};

/** Stored sealed: the CSV row takes the stored value, which Node opens (the order object's SQL leaves it null). */
const SEALED_COLUMNS: ReadonlySet<string> = new Set<OrderObjectEntry['key']>(['login', 'password']);

/**
 * The select list of the CSV export's row of order alias `o`: one value per column of the file, named by it,
 * in order, each as the order object has it (the sealed ones as stored). No JSON is built: the file's cells
 * are all scalars. `zone` as for orderJsonSql.
 */
export function orderCsvSelectSql(o: string, zone: string): string {
  const at = (value: string) => apiDateTimeSql(value, zone);
  return jsonFieldsSql(
    ORDER_VIEW.filter((field) => 'csv' in field).map((field): [string, string] => [
      field.key,
      SEALED_COLUMNS.has(field.key)
        ? `${o}.${field.key}`
        : isObjectField(field)
          ? fieldSql(field)(o, at)
          : CSV_ONLY_SQL[field.key](o, at),
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
  const own = ORDER_VIEW.filter(isObjectField).map((field): [string, string] => [
    field.key,
    fieldSql(field)(o, at),
  ]);
  const contributed = Object.entries(keys).map(([slot, key]): [string, string] => {
    const field = contributions.get(slot);
    if (!field) throw new Error(`Nothing is contributed to the order view as "${slot}"`);
    return [key, field(o, at)];
  });
  return `(SELECT row_to_json(j) FROM (SELECT ${jsonFieldsSql([...own, ...contributed])}) j)`;
}
