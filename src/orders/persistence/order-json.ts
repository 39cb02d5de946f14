import type { ApiFormats } from '../../platform/formats/api-formats';
import type { OrderBaseResponse } from '../dto/order.response';
import { orderJsonSql } from './order-view';

/**
 * The order object of CONTRACT §4 is built by PostgreSQL, children included, in the statement that finds the
 * order: one round trip, and no entity hydration or date formatting per field in Node. Its fields and their
 * order are the order view's (order-view.ts).
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

/** The key of the comments array the comments module contributes: `comments` on one order, else `partner_comments`. */
export type CommentsKey = 'comments' | 'partner_comments';

/** The select list of an order read: the object, then the columns it leaves out or that travel beside it. */
export function orderJsonSelect(o: string, zone: string, commentsKey: CommentsKey): string {
  return `${orderJsonSql(o, zone, { comments: commentsKey })} AS body, ${o}.login, ${o}.password, ${o}.version, ${o}.company_id`;
}

/** The same, with the object as the text PostgreSQL wrote, for a response that sends it as it is. */
export function orderJsonTextSelect(o: string, zone: string, commentsKey: CommentsKey): string {
  return `${orderJsonSql(o, zone, { comments: commentsKey })}::text AS body, ${o}.login, ${o}.password, ${o}.version, ${o}.company_id`;
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
