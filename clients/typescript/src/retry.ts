import { delay } from './delay.js';
import { RestaurantOrdersError, retryAfterSeconds } from './errors.js';

/** Answers to any request worth sending it again for: the rate limit (429) and a passing outage (503). */
const RETRIED_STATUSES: ReadonlySet<number> = new Set([429, 503]);

/** Methods that change nothing: sending one again is always safe. */
const READS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The service's 409 to a repeat of an Idempotency-Key whose first request is still running (CONTRACT §4). */
const KEY_IN_USE =
  'A request with this Idempotency-Key is still being processed: retry once it has finished.';

/** Waits without a Retry-After: 0.5 s, 1 s, 2 s, ... up to 8 s, each with jitter. */
const FIRST_BACKOFF_MS = 500;
const LONGEST_BACKOFF_MS = 8_000;

/** How long a try waits for its answer to begin, unless the client is told otherwise. */
export const DEFAULT_TIMEOUT_MS = 30_000;

export interface RetryOptions {
  /** How many times a request is sent again (default 2; 0 turns retries off). */
  maxRetries?: number;
  /**
   * The longest wait before a retry, in seconds (default 60, the length of the rate-limit window): an answer
   * asking for longer is returned as it is instead of waited for.
   */
  maxWaitSeconds?: number;
  /** Called before each wait, for logs and metrics. */
  onRetry?: (retry: RetryEvent) => void;
}

export interface RetryEvent {
  /** 1 for the first retry. */
  attempt: number;
  /** The status that is retried (429, 503, 500, ...); null when no answer came (`error` says why). */
  status: number | null;
  /** Why no answer came: a RestaurantOrdersError of kind `network` or `timeout`; null when one came. */
  error: RestaurantOrdersError | null;
  /** How long the client waits before sending the request again. */
  waitMs: number;
  /** The request as it is sent again, with the same `Idempotency-Key` as before. */
  request: Request;
}

export type Fetch = (request: Request) => Promise<Response>;

export interface SendOptions {
  retry?: RetryOptions;
  /** How long each try waits for the answer's status and headers, in milliseconds. */
  timeoutMs?: number;
  /** Whether a write is one the service carries out at most once per `Idempotency-Key`, and carries its key. */
  isKeyedWrite: (request: Request) => boolean;
}

/**
 * `fetch` that sends a request again when that is safe, the same request each time (a write keeps its
 * Idempotency-Key, so it is carried out at most once):
 * - after a 429 or 503, any request: neither carried it out. It waits `Retry-After` when the answer has one (as
 *   the rate limit's does), else an exponential backoff;
 * - after a network failure, a timeout, another 5xx, or the 409 of a key whose first request is still running,
 *   a read or a keyed write only: another write may have been carried out already.
 * Each try carries an `X-Request-Id` of its own unless the caller set one. A request that never got an answer
 * throws a RestaurantOrdersError (kind `network` or `timeout`); the caller's own abort is thrown as it is.
 */
export function retryingFetch(fetch: Fetch, options: SendOptions): Fetch {
  const maxRetries = options.retry?.maxRetries ?? 2;
  const maxWaitMs = (options.retry?.maxWaitSeconds ?? 60) * 1000;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  return async (request) => {
    const repeatable = READS.has(request.method) || options.isKeyedWrite(request);
    const namedByCaller = request.headers.has('X-Request-Id');
    for (let attempt = 1; ; attempt += 1) {
      const lastTry = attempt > maxRetries;
      const sent = lastTry ? request : request.clone();
      if (!namedByCaller) sent.headers.set('X-Request-Id', crypto.randomUUID());
      const outcome = await send(fetch, sent, timeoutMs);
      const failed = outcome instanceof RestaurantOrdersError;
      const retried = failed ? repeatable : await isRetried(outcome, repeatable);
      const retryAfter = failed ? null : retryAfterSeconds(outcome);
      const waitMs = retryAfter === null ? backoffMs(attempt) : retryAfter * 1000;
      if (!retried || lastTry || waitMs > maxWaitMs) {
        if (failed) throw outcome;
        return outcome;
      }
      if (!failed) await outcome.body?.cancel();
      options.retry?.onRetry?.({
        attempt,
        status: failed ? null : outcome.status,
        error: failed ? outcome : null,
        waitMs,
        request,
      });
      await delay(waitMs, request.signal);
    }
  };
}

/** One try: its answer, or why none began within `timeoutMs`. The caller's own abort is thrown as it is. */
async function send(
  fetch: Fetch,
  request: Request,
  timeoutMs: number,
): Promise<Response | RestaurantOrdersError> {
  const timeout = new AbortController();
  const timer = setTimeout(() => timeout.abort(), timeoutMs);
  try {
    return await fetch(new Request(request, { signal: AbortSignal.any([request.signal, timeout.signal]) }));
  } catch (cause) {
    if (request.signal.aborted) throw cause;
    return new RestaurantOrdersError({
      kind: timeout.signal.aborted ? 'timeout' : 'network',
      request,
      cause,
    });
  } finally {
    clearTimeout(timer);
  }
}

/** Whether an answer is worth another try: see retryingFetch. */
async function isRetried(response: Response, repeatable: boolean): Promise<boolean> {
  if (RETRIED_STATUSES.has(response.status)) return true;
  if (!repeatable) return false;
  if (response.status >= 500) return true;
  if (response.status !== 409) return false;
  const body: unknown = await response
    .clone()
    .json()
    .catch(() => undefined);
  return typeof body === 'object' && body !== null && 'message' in body && body.message === KEY_IN_USE;
}

function backoffMs(attempt: number): number {
  const ceiling = Math.min(LONGEST_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** (attempt - 1));
  return Math.round(ceiling * (0.5 + Math.random() / 2));
}
