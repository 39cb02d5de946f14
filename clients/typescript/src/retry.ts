import { retryAfterSeconds } from './errors.js';

/** The answers worth sending a request again for: the rate limit (429) and a passing outage (503). */
const RETRIED_STATUSES: ReadonlySet<number> = new Set([429, 503]);

/** Waits without a Retry-After: 0.5 s, 1 s, 2 s, ... up to 8 s, each with jitter. */
const FIRST_BACKOFF_MS = 500;
const LONGEST_BACKOFF_MS = 8_000;

export interface RetryOptions {
  /** How many times a request answered 429 or 503 is sent again (default 2; 0 turns retries off). */
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
  /** The status that is retried: 429 or 503. */
  status: number;
  /** How long the client waits before sending the request again. */
  waitMs: number;
  /** The request as it is sent again, with the same `Idempotency-Key` as before. */
  request: Request;
}

type Fetch = (request: Request) => Promise<Response>;

/**
 * `fetch` that sends a request again after a 429 or 503: after `Retry-After` when the answer carries one
 * (as the rate limit does), else after an exponential backoff. The request is resent unchanged, so a write
 * keeps its Idempotency-Key and is carried out at most once.
 */
export function retryingFetch(fetch: Fetch, options: RetryOptions = {}): Fetch {
  const maxRetries = options.maxRetries ?? 2;
  const maxWaitMs = (options.maxWaitSeconds ?? 60) * 1000;
  return async (request) => {
    for (let attempt = 1; ; attempt += 1) {
      const sent = attempt <= maxRetries ? request.clone() : request;
      const response = await fetch(sent);
      if (!RETRIED_STATUSES.has(response.status) || attempt > maxRetries) return response;
      const retryAfter = retryAfterSeconds(response);
      const waitMs = retryAfter === null ? backoffMs(attempt) : retryAfter * 1000;
      if (waitMs > maxWaitMs) return response;
      await response.body?.cancel();
      options.onRetry?.({ attempt, status: response.status, waitMs, request });
      await new Promise((resolve) => setTimeout(resolve, waitMs));
    }
  };
}

function backoffMs(attempt: number): number {
  const ceiling = Math.min(LONGEST_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** (attempt - 1));
  return Math.round(ceiling * (0.5 + Math.random() / 2));
}
