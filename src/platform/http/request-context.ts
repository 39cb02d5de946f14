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

/** The context of the request being served, if any. */
export function currentRequest(): RequestContext | undefined {
  return storage.getStore();
}
