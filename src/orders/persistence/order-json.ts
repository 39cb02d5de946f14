import type { ApiFormats } from '../../platform/formats/api-formats';
import { oneOf } from '../../kernel/check-constraint';
import type { OrderBaseResponse } from '../dto/order.response';
import { orderRefSql } from '../order-rules';
import { EDITABLE_STATES } from '../order-state';

/**
 * The order object of CONTRACT §4 is built by PostgreSQL, children included, in the statement that finds the
 * order: one round trip, and no entity hydration or date formatting per field in Node. `json` (not `jsonb`)
 * keeps the keys in the order written here, which is the order of spec §2.3.
 *
 * The device credentials are the exception: they are stored sealed (AES-256-GCM), so PostgreSQL leaves `login`
 * and `password` null in the object and returns the stored columns beside it, for the one Node step
 * (`withCredentials`) that opens them and puts them in place.
 */

/** An order as PostgreSQL returns it: the body without credentials, the credentials, version and company. */
export interface OrderJsonRow<Body extends OrderBaseResponse = OrderBaseResponse> {
  body: Body;
  login: string;
  password: string;
  version: number;
  company_id: number;
}

/** SQL expression: a timestamptz as the API writes datetimes, YYYY-MM-DDTHH:MM in the zone `zone` names. */
export const apiDateTimeSql = (column: string, zone: string): string =>
  `to_char(${column} AT TIME ZONE ${zone}, 'YYYY-MM-DD"T"HH24:MI')`;

/**
 * SQL expression: the order of row alias `o` as a json object. `zone` is the placeholder of the service time
 * zone (`$3`); datetimes come out as YYYY-MM-DDTHH:MM in it, like every datetime of the API.
 *
 * Objects are `row_to_json` of a row whose columns are the keys, and arrays are joined with commas, so the text
 * PostgreSQL returns is compact, exactly as JSON.stringify writes the same value: it can go to the client as it
 * is (`orderJsonTextSelect`).
 */
export function orderJsonSql(o: string, zone: string, commentsKey: 'comments' | 'partner_comments'): string {
  const key = `${o} ${zone} ${commentsKey}`;
  let sql = builtOrderJsonSql.get(key);
  if (sql === undefined) {
    sql = buildOrderJsonSql(o, zone, commentsKey);
    builtOrderJsonSql.set(key, sql);
  }
  return sql;
}

/** The expressions built so far: a few combinations of constants, built once instead of once per request. */
const builtOrderJsonSql = new Map<string, string>();

function buildOrderJsonSql(o: string, zone: string, commentsKey: 'comments' | 'partner_comments'): string {
  const at = (column: string) => apiDateTimeSql(column, zone);
  const fields = (pairs: [string, string][]) =>
    pairs.map(([key, value]) => `${value} AS "${key}"`).join(', ');
  const array = (pairs: [string, string][], from: string, alias: string, where: string, order: string) =>
    `(SELECT coalesce('[' || string_agg(row_to_json(j)::text, ',' ORDER BY ${order}) || ']', '[]')::json
      FROM ${from} ${alias} CROSS JOIN LATERAL (SELECT ${fields(pairs)}) j WHERE ${where})`;
  return `(SELECT row_to_json(j) FROM (SELECT ${fields([
    ['order_id', `${o}.id`],
    ['order_ref', orderRefSql(o)],
    ['created_at', at(`${o}.created_at`)],
    ['first_name', `${o}.first_name`],
    ['last_name', `${o}.last_name`],
    ['consignee', `${o}.consignee`],
    ['email', `${o}.email`],
    ['phone', `${o}.phone`],
    ['zip', `${o}.zip`],
    ['city', `${o}.city`],
    ['street', `${o}.street`],
    ['house_number', `${o}.house_number`],
    ['floor', `${o}.floor`],
    ['door', `${o}.door`],
    ['opening_hours', `${o}.opening_hours`],
    ['product_id', `${o}.product_id`],
    ['product_variation_id', `${o}.product_variation_id`],
    ['login', 'NULL::text'],
    ['password', 'NULL::text'],
    ['final_completion_date', at(`${o}.final_completion_date`)],
    ['order_type', `${o}.order_type`],
    ['original_order_id', `${o}.original_order_id::text`],
    [
      'trackings',
      array(
        [
          ['status_date', at('t.status_date')],
          ['status', 't.status'],
          ['dispatch_date', at('t.dispatch_date')],
          ['delivery_date', at('t.delivery_date')],
          ['tracking_number', 't.tracking_number'],
          ['tracking_link', 't.tracking_link'],
        ],
        'trackings',
        't',
        `t.order_id = ${o}.id`,
        't.id',
      ),
    ],
    [
      'detailed_status',
      `(SELECT row_to_json(j) FROM detailed_statuses s CROSS JOIN LATERAL (SELECT ${fields([
        ['status_date', at('s.status_date')],
        ['status', 's.status'],
        ['location', 's.location'],
        ['description', 's.description'],
        ['tracking_number', 's.tracking_number'],
        ['tracking_link', 's.tracking_link'],
      ])}) j WHERE s.order_id = ${o}.id ORDER BY s.status_date DESC, s.id DESC LIMIT 1)`,
    ],
    ['serial_number', `${o}.serial_number`],
    [
      'delivery_errors',
      array(
        [
          ['status', 'e.status'],
          ['date', at('e.date')],
          ['resolution', 'e.resolution'],
          ['comment', 'e.comment'],
        ],
        'delivery_errors',
        'e',
        `e.order_id = ${o}.id`,
        'e.id',
      ),
    ],
    ['merchant_id', `${o}.merchant_id`],
    ['state', `${o}.state`],
    ['editable', oneOf(`${o}.state`, EDITABLE_STATES)],
    ['test', `${o}.test`],
    ['country', `${o}.country`],
    ['note', `${o}.note`],
    ['details', `${o}.details`],
    ['corrected_order_ID', `${o}.corrected_order_id`],
    ['oms_user_id', `${o}.oms_user_id`],
    ['retail', `${o}.retail`],
    ['dinein', `${o}.dinein`],
    ['shop_number', `${o}.shop_number`],
    ['updated_at', at(`${o}.updated_at`)],
    [
      commentsKey,
      array(
        [
          ['id', 'c.id'],
          ['partner_comment', 'c.partner_comment'],
          ['user_name', 'c.user_name'],
          ['created_at', at('c.created_at')],
          ['updated_at', at('c.updated_at')],
        ],
        'order_comments',
        'c',
        `c.order_id = ${o}.id`,
        'c.id',
      ),
    ],
  ])}) j)`;
}

/** The select list of an order read: the object, then the columns it leaves out or that travel beside it. */
export function orderJsonSelect(
  o: string,
  zone: string,
  commentsKey: 'comments' | 'partner_comments',
): string {
  return `${orderJsonSql(o, zone, commentsKey)} AS body, ${o}.login, ${o}.password, ${o}.version, ${o}.company_id`;
}

/** The same, with the object as the text PostgreSQL wrote, for a response that sends it as it is. */
export function orderJsonTextSelect(
  o: string,
  zone: string,
  commentsKey: 'comments' | 'partner_comments',
): string {
  return `${orderJsonSql(o, zone, commentsKey)}::text AS body, ${o}.login, ${o}.password, ${o}.version, ${o}.company_id`;
}

/** An order as its JSON text (orderJsonTextSelect). */
export type OrderJsonTextRow = Omit<OrderJsonRow, 'body'> & { body: string };

/**
 * Where the credentials go in the text: the object has exactly this once, as keys, and before any value a
 * partner wrote (a quote inside a string value is always escaped, so no value can contain it).
 */
const CREDENTIALS_PLACEHOLDER = '"login":null,"password":null';

/** The response body as JSON text: PostgreSQL's, with the device credentials opened and put in place. */
export function withCredentialsText(
  row: OrderJsonTextRow,
  formats: Pick<ApiFormats, 'deviceCredentials'>,
): string {
  const { login, password } = formats.deviceCredentials(row);
  return row.body.replace(
    CREDENTIALS_PLACEHOLDER,
    () => `"login":${JSON.stringify(login)},"password":${JSON.stringify(password)}`,
  );
}

/** The response body: the object PostgreSQL built, with the device credentials opened and put in place. */
export function withCredentials<Body extends OrderBaseResponse>(
  row: OrderJsonRow<Body>,
  formats: Pick<ApiFormats, 'deviceCredentials'>,
): Body {
  const { login, password } = formats.deviceCredentials(row);
  row.body.login = login;
  row.body.password = password;
  return row.body;
}
