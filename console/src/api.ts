/** The admin API as the console calls it (CONTRACT §6): the token comes from sessionStorage, never elsewhere. */

const TOKEN_KEY = 'restaurant-orders.admin-token';

export const session = {
  token: (): string | null => sessionStorage.getItem(TOKEN_KEY),
  signIn: (token: string): void => sessionStorage.setItem(TOKEN_KEY, token),
  forget: (): void => sessionStorage.removeItem(TOKEN_KEY),
};

/** An answer other than 2xx: the API's own message, and each field's messages when it named fields. */
export class ApiError extends Error {
  /** The console's own, kinder sentence, shown beside the API's message (never instead of it). */
  advice: string | null = null;

  constructor(
    readonly status: number,
    message: string,
    readonly fields: Record<string, string[] | string> = {},
  ) {
    super(message);
  }

  /** The message and every field message, as the API wrote them. */
  get details(): string[] {
    return Object.entries(this.fields).flatMap(([field, messages]) =>
      (Array.isArray(messages) ? messages : [messages]).map((message) => `${field}: ${message}`),
    );
  }
}

/** Called when the API refuses the token (401): it has been forgotten, and the console signs out. */
let onRefused: (error: ApiError) => void = () => undefined;
export function whenTokenRefused(handler: (error: ApiError) => void): void {
  onRefused = handler;
}

/** A request to the admin API: the answer's text when it is 2xx, else an ApiError (a 401 signs the console out). */
async function send(
  method: string,
  path: string,
  body: unknown,
  token: string | null,
  accept = 'application/json',
): Promise<string> {
  let response: Response;
  try {
    response = await fetch(`/api/v2/admin${path}`, {
      method,
      headers: {
        Accept: accept,
        Authorization: `Bearer ${token ?? ''}`,
        ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: 'omit',
      cache: 'no-store',
    });
  } catch {
    throw new ApiError(0, 'The service cannot be reached: check the connection and try again.');
  }
  const text = await response.text();
  if (response.ok) return text;
  const { message, errors } = (parsed(text) ?? {}) as { message?: string; errors?: Record<string, string[]> };
  const error = new ApiError(response.status, message ?? `HTTP ${response.status}`, errors);
  if (response.status === 401 && token === session.token()) {
    session.forget();
    onRefused(error);
  }
  throw error;
}

function parsed(text: string): unknown {
  try {
    return text ? JSON.parse(text) : undefined;
  } catch {
    return undefined;
  }
}

export async function call<T>(
  method: string,
  path: string,
  body?: unknown,
  token = session.token(),
): Promise<T> {
  return parsed(await send(method, path, body, token)) as T;
}

/** A GET whose answer is NDJSON (an import's results): one value a line. */
export async function callLines<T>(path: string): Promise<T[]> {
  const text = await send('GET', path, undefined, session.token(), 'application/x-ndjson');
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as T);
}

export interface Page<T> {
  data: T[];
  links: { first: string; last: null; prev: string | null; next: string | null };
  meta: { current_page: number; from: number | null; to: number | null; per_page: number };
}

export interface Company {
  id: number;
  name: string;
  site: string;
  created_at: string;
}

export interface Token {
  id: number;
  prefix: string;
  role: 'partner' | 'admin' | 'logistics';
  user_name: string;
  company_id: number | null;
  created_at: string;
  last_used_at: string | null;
  expires_at: string | null;
  revoked_at: string | null;
  read_only: boolean;
  rolled_at: string | null;
  previous_expires_at: string | null;
}

export interface IssuedToken extends Token {
  token: string;
}

export interface Product {
  id: number;
  name: string;
  active: boolean;
  variations: { id: number; name: string }[];
}

export interface Webhook {
  id: number;
  company_id: number;
  url: string;
  active: boolean;
  disabled_reason: string | null;
  created_at: string;
  deleted_at: string | null;
  /** null: every type. */
  event_types: string[] | null;
  enabled: boolean;
  disabled_at: string | null;
  previous_secret_expires_at: string | null;
}

export interface CreatedWebhook extends Webhook {
  secret: string;
}

export interface RotatedWebhook extends Webhook {
  secret: string;
}

/** The event types of CONTRACT §5 an endpoint can choose among. */
export const EVENT_TYPES = [
  'order.placed',
  'order.updated',
  'order.comment',
  'order.state_changed',
  'order.tracking',
  'order.detailed_status',
  'order.delivery_error',
  'import.completed',
  'import.failed',
];

export interface Delivery {
  id: number;
  event_id: string;
  event_type: string;
  status: 'pending' | 'paused' | 'succeeded' | 'failed' | 'cancelled';
  attempt_count: number;
  next_attempt_at: string | null;
  created_at: string;
  delivered_at: string | null;
  attempts: { attempted_at: string; status_code: number | null; duration_ms: number; error: string | null }[];
}

export interface AttemptDetail {
  number: number;
  attempted_at: string;
  status_code: number | null;
  duration_ms: number;
  error: string | null;
  request_headers: Record<string, string> | null;
  response_headers: Record<string, string> | null;
  response_body: string | null;
  response_body_truncated: boolean;
}

export interface DeliveryDetail extends Omit<Delivery, 'attempts'> {
  endpoint_id: number;
  company_id: number;
  request_body: string | null;
  attempts: AttemptDetail[];
}

export interface AuditEvent {
  id: number;
  occurred_at: string;
  token_id: number | null;
  user_name: string;
  company_id: number | null;
  /** The company's name as it is now; null for a change of no company. */
  company_name: string | null;
  action: string;
  target_type: string;
  target_id: number;
  request_id: string | null;
  changed_fields: string[];
}

export interface OrderCompany {
  id: number;
  name: string;
  site: string;
}

/** The order object as the partner API returns it (only what the console shows is typed). */
export interface Order {
  order_id: number;
  order_ref: string;
  created_at: string;
  updated_at: string;
  state: string;
  order_type: string;
  test: boolean;
  first_name: string;
  last_name: string;
  consignee: string;
  email: string;
  city: string;
}

export interface AdminOrderListItem {
  order: Order;
  company: OrderCompany;
}

export interface TimelineDelivery {
  id: number;
  endpoint_id: number;
  endpoint_url: string;
  status: Delivery['status'];
  attempt_count: number;
  last_attempt?: {
    attempted_at: string;
    status_code: number | null;
    duration_ms: number;
    error: string | null;
  };
}

export interface TimelineEntry {
  kind: 'audit' | 'event';
  at: string;
  audit?: {
    id: number;
    action: string;
    changed_fields: string[];
    user_name: string;
    token_id: number | null;
    token_role: Token['role'] | null;
    request_id: string | null;
  };
  event?: { id: string; type: string; deliveries: TimelineDelivery[] };
}

export interface AdminOrder {
  order: Order;
  company: OrderCompany;
  timeline: TimelineEntry[];
  timeline_truncated: boolean;
}

/** A request made with a company's token (GET /admin/requests, CONTRACT §4.12). */
export interface LoggedRequest {
  request_id: string;
  created_at: string;
  method: string;
  route: string | null;
  path: string;
  status: number;
  duration_ms: number;
  company_id: number;
  token_id: number;
  user_name: string;
  idempotency_key: string | null;
  order_id: number | null;
  response_body: Record<string, unknown> | null;
}

/** One request with what it caused: the order, and its events with their deliveries. */
export interface LoggedRequestDetail extends LoggedRequest {
  order: Order | null;
  events: {
    id: string;
    type: string;
    created_at: string;
    deliveries: {
      id: number;
      endpoint_id: number;
      status: Delivery['status'];
      attempt_count: number;
      last_status_code: number | null;
    }[];
  }[];
}

/** A query string from the values that are set. */
export function query(values: Record<string, string | number | undefined>): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(values)) {
    if (value !== undefined && value !== '') params.set(name, String(value));
  }
  const text = params.toString();
  return text ? `?${text}` : '';
}

/** A bulk import (CONTRACT §4.11) as the admin API lists it. */
export interface OrderImport {
  id: number;
  company_id: number;
  state: 'queued' | 'running' | 'completed' | 'failed';
  format: 'csv' | 'ndjson';
  dry_run: boolean;
  total: number;
  placed: number;
  failed: number;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
}

/** One line's result: the order it placed, or exactly the errors POST /order would have answered. */
export interface ImportLineResult {
  line: number;
  order_id?: number;
  errors?: Record<string, string[]>;
}
