import { AsyncLocalStorage } from 'node:async_hooks';
import type { Logger } from 'pino';

/** What the code serving a request can reach without being handed the request. */
export interface RequestContext {
  /** The request id (X-Request-Id). */
  id: string;
  /** The request's child logger, bound to its id: made on the first line logged while serving it. */
  log?: Logger;
  /** SQL statements run while serving it, reported as `dbQueries` on its log line. */
  dbQueries: number;
  /** With LOG_SQL, the text of each of those statements (never their parameters); unset otherwise. */
  sql?: string[];
  /** The contract body of the error it was answered with (the exception filter's), for the request log. */
  errorBody?: unknown;
  /** The order a placement created (routes with an order id carry it as their `id` parameter). */
  placedOrderId?: number;
}

/**
 * One context per request, the request object itself, carried across awaits. One AsyncLocalStorage for
 * everything a request carries: each one enabled costs every promise of the process a hook.
 */
const storage = new AsyncLocalStorage<RequestContext>();

/** Runs the rest of the request (`next`) in its context. */
export function runInRequestContext(context: RequestContext, next: () => void): void {
  storage.run(context, next);
}

/** Runs a background job's iteration (`work`) in a context of its own, as a request runs in its. */
export function runInJobContext<T>(context: RequestContext, work: () => Promise<T>): Promise<T> {
  return storage.run(context, work);
}

/** The context of the request being served, if any. */
export function currentRequest(): RequestContext | undefined {
  return storage.getStore();
}

/** Records, for the request log, the order the request being served placed. */
export function notePlacedOrder(orderId: number): void {
  const request = storage.getStore();
  if (request) request.placedOrderId = orderId;
}
