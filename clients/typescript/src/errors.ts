/** The body of every error the API answers (CONTRACT §2): a message, and for a 400 the failing fields. */
export interface ErrorBody {
  message?: string;
  errors?: Record<string, string[] | string>;
  success?: false;
}

/**
 * A response that was not a success: what the API answered, and the request id to quote to support (the
 * service writes it to its log with the detail of the failure).
 */
export class RestaurantOrdersError extends Error {
  override readonly name = 'RestaurantOrdersError';
  /** The HTTP status: 400, 401, 403, 404, 409, 412, 422, 429, 503, ... */
  readonly status: number;
  /** The JSON body as it came (a string when it was not JSON). */
  readonly body: ErrorBody | string | undefined;
  /** `X-Request-Id` of the response: every response of the service carries one. */
  readonly requestId: string | null;
  /** `Retry-After` in seconds on a 429 or 503 that carries it, after the client's own retries ran out. */
  readonly retryAfter: number | null;
  readonly response: Response;

  constructor(response: Response, body: unknown) {
    const parsed = typeof body === 'object' && body !== null ? (body as ErrorBody) : undefined;
    super(`${response.status} ${parsed?.message ?? response.statusText}`.trim());
    this.status = response.status;
    this.body = parsed ?? (typeof body === 'string' ? body : undefined);
    this.requestId = response.headers.get('X-Request-Id');
    this.retryAfter = retryAfterSeconds(response);
    this.response = response;
  }
}

/** `Retry-After` in seconds, in either form HTTP allows (seconds, or a date); null when absent or unreadable. */
export function retryAfterSeconds(response: Response): number | null {
  const value = response.headers.get('Retry-After');
  if (value === null || value.trim() === '') return null;
  if (/^\d+$/.test(value.trim())) return Number(value);
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, Math.ceil((date - Date.now()) / 1000));
}

/** What an openapi-fetch call resolves to: the data of a success, or the error body of anything else. */
interface CallResult {
  data?: unknown;
  error?: unknown;
  response: Response;
}

/** The data of a call's success: its error variant (`{ error }`) taken out. */
export type SuccessData<Result extends CallResult> = Exclude<Result, { error: unknown }>['data'];

/**
 * The data of a successful call, or a RestaurantOrdersError thrown for any other answer:
 * `const order = await unwrap(api.GET('/api/v2/order/{id}', { params: { path: { id } } }))`.
 */
export async function unwrap<Result extends CallResult>(call: Promise<Result>): Promise<SuccessData<Result>> {
  const { data, error, response } = await call;
  if (!response.ok) throw new RestaurantOrdersError(response, error);
  return data;
}
