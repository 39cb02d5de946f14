/** The body of every error the API answers (CONTRACT §2): a message, and for a 400 the failing fields. */
export interface ErrorBody {
  message?: string;
  errors?: Record<string, string[] | string>;
  success?: false;
}

/**
 * What went wrong: `response`, the API answered with a status that is not a success; `network`, no answer came
 * (nothing listening, the connection refused or reset, the host not found); `timeout`, no answer began within
 * the client's `timeoutMs`.
 */
export type RestaurantOrdersErrorKind = 'response' | 'network' | 'timeout';

/** A request that got no answer, as the client's fetch reports it after its retries. */
export interface NoAnswer {
  kind: Exclude<RestaurantOrdersErrorKind, 'response'>;
  /** The request as it was last sent. */
  request: Request;
  /** What fetch threw: for a network failure, its `cause` names the system error (`ECONNREFUSED`, ...). */
  cause: unknown;
}

/**
 * A call that did not succeed: what the API answered (status, body), or why no answer came (`kind`, `cause`),
 * and the request id to quote to support (the service writes it to its log with the detail of the failure).
 */
export class RestaurantOrdersError extends Error {
  override readonly name = 'RestaurantOrdersError';
  readonly kind: RestaurantOrdersErrorKind;
  /** The HTTP status (400, 401, 403, 404, 409, 412, 422, 429, 500, 503, ...); null when no answer came. */
  readonly status: number | null;
  /** The JSON body as it came (a string when it was not JSON); undefined when no answer came. */
  readonly body: ErrorBody | string | undefined;
  /**
   * `X-Request-Id` of the response (every response of the service carries one); when no answer came, the id the
   * client sent with its last try: the service logged the request under it if the request reached it.
   */
  readonly requestId: string | null;
  /** `Retry-After` in seconds on a 429 or 503 that carries it, after the client's own retries ran out. */
  readonly retryAfter: number | null;
  /** The response; null when no answer came. */
  readonly response: Response | null;

  constructor(response: Response, body: unknown);
  constructor(failure: NoAnswer);
  constructor(source: Response | NoAnswer, body?: unknown) {
    const what = 'kind' in source ? noAnswer(source) : answer(source, body);
    super(what.message, 'cause' in what ? { cause: what.cause } : undefined);
    this.kind = what.kind;
    this.status = what.status;
    this.body = what.body;
    this.requestId = what.requestId;
    this.retryAfter = what.retryAfter;
    this.response = what.response;
  }
}

type Description = Pick<
  RestaurantOrdersError,
  'kind' | 'message' | 'status' | 'body' | 'requestId' | 'retryAfter' | 'response'
> & { cause?: unknown };

function answer(response: Response, body: unknown): Description {
  const parsed = typeof body === 'object' && body !== null ? (body as ErrorBody) : undefined;
  return {
    kind: 'response',
    message: `${response.status} ${parsed?.message ?? response.statusText}`.trim(),
    status: response.status,
    body: parsed ?? (typeof body === 'string' ? body : undefined),
    requestId: response.headers.get('X-Request-Id'),
    retryAfter: retryAfterSeconds(response),
    response,
  };
}

function noAnswer({ kind, request, cause }: NoAnswer): Description {
  const what = kind === 'timeout' ? 'No answer in time' : `Network failure (${describe(cause)})`;
  return {
    kind,
    message: `${what}: ${request.method} ${request.url}`,
    status: null,
    body: undefined,
    requestId: request.headers.get('X-Request-Id'),
    retryAfter: null,
    response: null,
    cause,
  };
}

/** What fetch's "fetch failed" hides: the system error's code (ECONNREFUSED, ECONNRESET, ...) or its message. */
function describe(cause: unknown): string {
  const inner = fieldOf(cause, 'cause');
  const code = fieldOf(inner, 'code');
  const message = fieldOf(inner, 'message') ?? fieldOf(cause, 'message');
  if (typeof code === 'string') return code;
  return typeof message === 'string' ? message : String(cause);
}

/** A field of what may be an error (of this realm or another: a custom fetch's, a test sandbox's). */
function fieldOf(value: unknown, name: string): unknown {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[name] : undefined;
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
 * `const order = await unwrap(client.getOrder({ params: { path: { id } } }))`. A call that got no answer throws
 * a RestaurantOrdersError itself (kind `network` or `timeout`), with or without unwrap.
 */
export async function unwrap<Result extends CallResult>(call: Promise<Result>): Promise<SuccessData<Result>> {
  const { data, error, response } = await call;
  if (!response.ok) throw new RestaurantOrdersError(response, error);
  return data;
}
